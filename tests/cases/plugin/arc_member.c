/* A bitcode member of an archive: the host offers it at its offset in the archive. */
int from_archive(int x) { return x * 11; }
