/* The "IR" object the fake plugin claims (it gets a .gnu.lto_.fake section added). */
int ir_stub_marker;
