// The PTX rewrite that lets NVIDIA's OpenCL run Hopper's wgmma instructions (kernels/matmul_wgmma.cl).
// The driver compiles OpenCL C for `.target sm_90`, where ptxas rejects wgmma (sm_90a only), but it
// builds PTX given as a program binary for whatever target that PTX names. So the kernels write each
// wgmma line behind the PTX comment kWgmmaMarker, and the program cache passes the program's PTX
// through sm90a_ptx before building it again as a binary. Pure text work (no OpenCL call), so tests
// run it on made-up PTX.
#pragma once

#include <string>
#include <string_view>

namespace xd::ocl {

// What hides a wgmma line in the PTX (kernels/matmul_wgmma.cl: XD_WGMMA_LIVE has the same text).
inline constexpr std::string_view kWgmmaMarker = "// XD_SM90A ";

struct ptx_rewrite {
  bool changed = false;  // the PTX held the marker: `text` is what to build
  std::string text;      // the rewritten PTX (changed), else empty
  std::string error;     // non-empty: the PTX held the marker but cannot be rewritten, and why
};

// Deletes every kWgmmaMarker, changes the `.target sm_90` directive to `sm_90a` (keeping the rest
// of its line) and raises a `.version` below 8.3 to 8.3 (8.0 is the first PTX ISA with wgmma; 8.3
// has tensormap.replace and the tensor-map proxy fences of matmul_wgmma.cl's tensor-map route). Without
// the marker, changed is false and nothing else is looked at. With it, an error when there is no
// `.target` directive or it names another architecture than sm_90 (sm_90a's instructions are that
// GPU's alone), or the `.version` directive is missing or unreadable.
ptx_rewrite sm90a_ptx(std::string_view ptx);

}  // namespace xd::ocl
