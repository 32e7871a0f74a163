/* The library STUB_NEEDS_DEP links against; the test folder never contains it at run time. */
__attribute__((visibility("default"))) int xd_stub_dep_value(void) { return 42; }
