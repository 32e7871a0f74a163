// levelzero_driver_probe: the CTest scripts' independent answer to "is a Level Zero driver
// present here?" (driver_probe.hpp). Exit status 0 and "present: ..." when one is, 1 and
// "absent: ..." when none is; anything else is the probe failing.
#include "driver_probe.hpp"

#include <iostream>

int main() {
  const xd::test::level_zero_probe p = xd::test::probe_level_zero_driver();
  std::cout << (p.present ? "present: " : "absent: ") << p.detail << "\n";
  return p.present ? 0 : 1;
}
