#include "kernels/register.hpp"

namespace xd::ocl {
void register_reduction(plugin::registrar&) {}
}  // namespace xd::ocl
