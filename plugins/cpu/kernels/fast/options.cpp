// XD_CPU_KERNELS, the switch between the fast kernels and the reference loops; XD_CPU_MAX_ISA, the
// cap on their instruction set; and the size at which outputs bypass the caches.
#include "kernels/fast/rows.hpp"
#include "kernels/kernel_list.hpp"

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

const xd_option_desc& isa_option() {
  static const xd_option_desc option{
      sizeof(xd_option_desc),
      "XD_CPU_MAX_ISA",
      XD_OPTION_CHOICE,
      0,
      {},
      {},
      "best|avx512|avx2|sse4|scalar",
      "best",
      "The best instruction set the fast kernels' vector code may use: 'best' takes the best this CPU supports; "
      "'avx512', 'avx2' or 'sse4' (x86) caps it there (a CPU without the cap runs its best below it); 'scalar' "
      "runs the portable one-lane code. For comparing targets and testing the narrower ones on a wide CPU; "
      "process-wide (it disables targets in libhwy). Read when the plugin initialises.",
  };
  return option;
}

namespace fast {

bool enabled(xd_dtype) {
  static const bool on = [] {
    const bool fast = plugin::option_text(kernels_option()) != "reference";
    const std::string isa = plugin::option_text(isa_option());
    if (fast && !simd::cap_target(isa))
      plugin::log(XD_LOG_WARN, "XD_CPU_MAX_ISA=" + isa +
                                   " names no instruction set of this build's targets on "
                                   "this architecture; the best is used");
    plugin::log(XD_LOG_INFO, fast ? std::string("fast kernels on, vectorised for ") + simd::target_name()
                                  : std::string("XD_CPU_KERNELS=reference: only the reference loops are registered"));
    return fast;
  }();
  return on;
}

int64_t stream_threshold_bytes() {
  // A fixed 16 MiB, not the size sysconf reports: that is the whole package's last-level cache
  // (64 MiB in this project's VM), while a core reaches only its complex's share (8 MiB there),
  // so a 64 MiB output was written through the caches, read for ownership line by line: rms_norm
  // of 4096x4096 f32 took 9.1 ms that way against 6.2 ms with streaming stores (docs/performance.md).
  return int64_t{16} << 20;
}

}  // namespace fast
}  // namespace xd::cpu
