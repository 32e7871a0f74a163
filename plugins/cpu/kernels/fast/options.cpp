// XD_CPU_KERNELS, the switch between the fast kernels and the reference loops, and the size at
// which outputs bypass the caches.
#include "kernels/fast/rows.hpp"
#include "kernels/kernel_list.hpp"

#include <unistd.h>

namespace xd::cpu {

const xd_option_desc& kernels_option() {
  static const xd_option_desc option{
      sizeof(xd_option_desc),
      "XD_CPU_KERNELS",
      XD_OPTION_CHOICE,
      0,
      {},
      {},
      "fast|reference",
      "fast",
      "Which CPU kernels are registered: 'fast' registers the vectorised, multi-threaded kernels in front of the "
      "reference loops (each declines what it does not take, and the reference runs it); 'reference' registers "
      "only the reference loops, the oracle (to compare, or to rule the fast kernels out). Read when the plugin "
      "initialises."};
  return option;
}

namespace fast {

bool enabled(xd_dtype) {
  static const bool on = [] {
    const bool fast = plugin::option_text(kernels_option()) != "reference";
    plugin::log(XD_LOG_INFO, fast ? std::string("fast kernels on, vectorised for ") + simd::target_name()
                                  : std::string("XD_CPU_KERNELS=reference: only the reference loops are registered"));
    return fast;
  }();
  return on;
}

int64_t stream_threshold_bytes() {
  static const int64_t bytes = [] {
    // Twice the last-level cache: smaller outputs may still be read back from it.
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? 2 * static_cast<int64_t>(l3) : int64_t{16} << 20;
  }();
  return bytes;
}

}  // namespace fast
}  // namespace xd::cpu
