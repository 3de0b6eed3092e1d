unsigned scale(unsigned v) { return v * 3 + (v >> 7); }
