// The rest of the OpenCL C prelude of generated kernels (docs/compiler.md, "Names every prelude
// defines"): common.cl gives the storage types, decodes and conversions; this file gives exact
// constants, the math the emitter calls and XD_KERNEL. Never a program of its own: a plugin's
// codegen target() puts its device's defines, common.cl and this file in front of generated code.
//
// Math is the builtins at full precision (not native_*): generated code is compared with the CPU
// reference within the tolerances the hand-written kernels meet with the same builtins. The NaN
// tests read the bits, so a -cl-finite-math-only or -cl-fast-relaxed-math in the build options
// cannot fold them to false.

#define XD_KERNEL __kernel

// The float whose bits are u: how the emitter writes a constant exactly (no decimal rounding).
#define xd_bits_f(u) as_float((uint)(u))

inline float xd_exp_f(float x) { return exp(x); }
inline float xd_log_f(float x) { return log(x); }
inline float xd_sqrt_f(float x) { return sqrt(x); }
inline float xd_tanh_f(float x) { return tanh(x); }
inline float xd_erf_f(float x) { return erf(x); }
inline float xd_fabs_f(float x) { return fabs(x); }
inline float xd_pow_f(float x, float y) { return pow(x, y); }
inline float xd_copysign_f(float x, float y) { return copysign(x, y); }
inline int xd_isnan_f(float x) { return (as_uint(x) & 0x7fffffffu) > 0x7f800000u; }

#ifdef XD_HAS_FP64
#define xd_bits_d(u) as_double((ulong)(u))

inline double xd_exp_d(double x) { return exp(x); }
inline double xd_log_d(double x) { return log(x); }
inline double xd_sqrt_d(double x) { return sqrt(x); }
inline double xd_tanh_d(double x) { return tanh(x); }
inline double xd_erf_d(double x) { return erf(x); }
inline double xd_fabs_d(double x) { return fabs(x); }
inline double xd_pow_d(double x, double y) { return pow(x, y); }
inline double xd_copysign_d(double x, double y) { return copysign(x, y); }
inline int xd_isnan_d(double x) { return (as_ulong(x) & 0x7fffffffffffffffUL) > 0x7ff0000000000000UL; }
#endif
