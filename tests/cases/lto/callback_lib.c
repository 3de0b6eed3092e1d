/* A native shared library that calls back into the executable: callback is
   undefined here and defined by the (LTO) executable. */
int callback(int);

int call_back(int x) {
    return callback(x) * 2;
}
