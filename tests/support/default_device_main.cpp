// xd_test_default_device: prints the device XD_BACKEND selects, for tests that must see a fresh
// process (the core reads XD_BACKEND once per process, so a test binary cannot try several values
// itself). Output, one line:
//   default device: <device> backend=<name> kind=<cpu|gpu|accelerator> name=<device name>   exit 0
//   BackendError: <message>                                                                 exit 1
//   error: <message>                                                                        exit 2
#include <xd/xd.hpp>

#include <exception>
#include <iostream>

int main() {
  try {
    const xd::Device d = xd::default_device();
    std::cout << "default device: " << d.str() << " backend=" << d.backend()
              << " kind=" << xd::device_kind_name(d.properties().kind) << " name=" << d.properties().name << "\n";
    return 0;
  } catch (const xd::BackendError& e) {
    std::cout << "BackendError: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout << "error: " << e.what() << "\n";
    return 2;
  }
}
