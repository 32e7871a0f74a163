// The prelude's conversions, compiled by the plugin's own toolchain and flags, against
// include/xd/numeric.hpp bit for bit (every f16/bf16/fp8 pattern, ties, double rounding) and
// against the CPU reference's casts for the integer and bool targets.
#include <xd/numeric.hpp>

#include "codegen_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using xdcg::codegen;
using xdcg::last_error;

// One kernel per conversion: y[i] = f(x[i]), written with the prelude's names only.
const char* kKernels = R"(
#define XD_CONV(name, In, Out, f) \
  XD_KERNEL void name(void* const* a, long b, long e) { \
    const In* x = (const In*)a[0]; Out* y = (Out*)a[1]; \
    for (long i = b; i < e; ++i) y[i] = f(x[i]); }
#define XD_FROM_ALL(tag) \
  XD_CONV(from_f_##tag, float, xd_T_##tag, xd_from_f_##tag) \
  XD_CONV(from_d_##tag, double, xd_T_##tag, xd_from_d_##tag) \
  XD_CONV(from_l_##tag, long, xd_T_##tag, xd_from_l_##tag)
XD_CONV(dec_f16, xd_T_f16, float, xd_dec_f16)
XD_CONV(dec_bf16, xd_T_bf16, float, xd_dec_bf16)
XD_CONV(dec_e4m3, xd_T_e4m3, float, xd_dec_e4m3)
XD_CONV(dec_e5m2, xd_T_e5m2, float, xd_dec_e5m2)
XD_CONV(dec_b8, xd_T_b8, long, xd_dec_b8)
XD_CONV(dec_i8, xd_T_i8, long, xd_dec_i8)
XD_FROM_ALL(f16) XD_FROM_ALL(bf16) XD_FROM_ALL(e4m3) XD_FROM_ALL(e5m2)
XD_FROM_ALL(i8) XD_FROM_ALL(u8) XD_FROM_ALL(i32) XD_FROM_ALL(i64) XD_FROM_ALL(b8)
XD_FROM_ALL(f32) XD_FROM_ALL(f64)
XD_CONV(bits_f, uint, float, xd_bits_f)
)";

class Conversions : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    cg_ = xdcg::cpu_codegen();
    xd_codegen_target t{};
    t.struct_size = sizeof t;
    ASSERT_EQ(cg_.api->target(cg_.ctx, cg_.device, XD_CODEGEN_CPP, &t), XD_OK) << last_error();
    const std::string source = std::string(t.prelude) + kKernels;
    ASSERT_EQ(cg_.api->program_build(cg_.ctx, cg_.device, XD_CODEGEN_CPP, source.c_str(), &program_), XD_OK)
        << last_error();
  }

  template <class Out, class In>
  static std::vector<Out> run(const char* name, const std::vector<In>& x) {
    xd_codegen_kernel k = nullptr;
    EXPECT_EQ(cg_.api->kernel_get(cg_.ctx, cg_.device, program_, name, &k), XD_OK) << last_error();
    std::vector<Out> y(x.size());
    const xd_codegen_arg args[2] = {{XD_CODEGEN_ARG_BUFFER, 0, x.data()}, {XD_CODEGEN_ARG_BUFFER, 0, y.data()}};
    const xd_codegen_grid grid{1, {x.size(), 1, 1}, {4096, 1, 1}};
    EXPECT_EQ(cg_.api->kernel_launch(cg_.ctx, cg_.device, nullptr, k, args, 2, &grid), XD_OK) << last_error();
    return y;
  }

  static codegen cg_;
  static xd_program program_;
};
codegen Conversions::cg_;
xd_program Conversions::program_ = nullptr;

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

template <class S>
std::vector<S> every_pattern() {
  std::vector<S> v(size_t{1} << (8 * sizeof(S)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<S>(i);
  return v;
}

// Floats that probe a narrow format's rounding: every value it holds, the midpoints between
// neighbours (ties to even) and one float either side of each, the extremes, and random floats.
std::vector<float> probes(float (*decode)(uint32_t), uint32_t patterns) {
  std::vector<float> v;
  std::vector<float> values;
  for (uint32_t p = 0; p < patterns; ++p) values.push_back(decode(p));
  v.insert(v.end(), values.begin(), values.end());
  std::vector<float> sorted;
  for (float a : values)
    if (std::isfinite(a)) sorted.push_back(a);
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    const float mid = static_cast<float>((static_cast<double>(sorted[i]) + sorted[i + 1]) / 2);
    v.insert(v.end(), {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)});
  }
  const float inf = std::numeric_limits<float>::infinity();
  v.insert(v.end(), {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                     std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(), 0.0f, -0.0f});
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    v.push_back(f);
  }
  return v;
}

float dec_f16(uint32_t p) { return xd::numeric_detail::f16_to_float(static_cast<uint16_t>(p)); }
float dec_bf16(uint32_t p) { return xd::numeric_detail::bf16_to_float(static_cast<uint16_t>(p)); }
float dec_e4m3(uint32_t p) { return xd::numeric_detail::e4m3fn_format::decode(p); }
float dec_e5m2(uint32_t p) { return xd::numeric_detail::e5m2_format::decode(p); }
uint32_t enc_f16(float f) { return xd::numeric_detail::float_to_f16(f); }
uint32_t enc_bf16(float f) { return xd::numeric_detail::float_to_bf16(f); }
uint32_t enc_e4m3(float f) { return xd::numeric_detail::e4m3fn_format::encode(f, false); }
uint32_t enc_e5m2(float f) { return xd::numeric_detail::e5m2_format::encode(f, false); }

struct format {
  const char* tag;
  float (*decode)(uint32_t);
  uint32_t (*encode)(float);
  uint32_t patterns;
};
const format kFormats[] = {{"f16", dec_f16, enc_f16, 65536},
                           {"bf16", dec_bf16, enc_bf16, 65536},
                           {"e4m3", dec_e4m3, enc_e4m3, 256},
                           {"e5m2", dec_e5m2, enc_e5m2, 256}};

template <class S>
void expect_decodes(const std::vector<float>& got, const format& f) {
  for (size_t p = 0; p < got.size(); ++p)
    ASSERT_EQ(bits(got[p]), bits(f.decode(static_cast<uint32_t>(p)))) << f.tag << " pattern " << p;
}

TEST_F(Conversions, DecodersMatchNumericHppForEveryPattern) {
  expect_decodes<uint16_t>(run<float>("dec_f16", every_pattern<uint16_t>()), kFormats[0]);
  expect_decodes<uint16_t>(run<float>("dec_bf16", every_pattern<uint16_t>()), kFormats[1]);
  expect_decodes<uint8_t>(run<float>("dec_e4m3", every_pattern<uint8_t>()), kFormats[2]);
  expect_decodes<uint8_t>(run<float>("dec_e5m2", every_pattern<uint8_t>()), kFormats[3]);
}

template <class S>
void check_encoders(const format& f) {
  const std::string tag = f.tag;
  const std::vector<float> x = probes(f.decode, f.patterns);
  const std::vector<S> y = Conversions::run<S>(("from_f_" + tag).c_str(), x);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(y[i], f.encode(x[i])) << tag << " of float bits " << std::hex << bits(x[i]);
  // From double and long: through float first, as the reference casts (f64 -> f16 rounds twice).
  std::vector<double> xd;
  for (float v : x) xd.push_back(v);
  for (size_t i = 0; i + 1 < x.size() && i < 100000; ++i) xd.push_back(std::nextafter(double(x[i]), 1e300));
  const std::vector<S> yd = Conversions::run<S>(("from_d_" + tag).c_str(), xd);
  for (size_t i = 0; i < xd.size(); ++i)
    ASSERT_EQ(yd[i], f.encode(static_cast<float>(xd[i]))) << tag << " of double " << xd[i];
  std::vector<long> xl = {0,
                          1,
                          -1,
                          3,
                          448,
                          449,
                          65504,
                          65519,
                          65520,
                          16777217,
                          -16777217,
                          std::numeric_limits<long>::max(),
                          std::numeric_limits<long>::min()};
  const std::vector<S> yl = Conversions::run<S>(("from_l_" + tag).c_str(), xl);
  for (size_t i = 0; i < xl.size(); ++i)
    ASSERT_EQ(yl[i], f.encode(static_cast<float>(xl[i]))) << tag << " of long " << xl[i];
}

TEST_F(Conversions, EncodersMatchNumericHppIncludingTiesAndDoubleRounding) {
  check_encoders<uint16_t>(kFormats[0]);
  check_encoders<uint16_t>(kFormats[1]);
  check_encoders<uint8_t>(kFormats[2]);
  check_encoders<uint8_t>(kFormats[3]);
}

// Integer and bool targets against the CPU reference's cast (eager XD_OP_COPY).
template <class T>
std::vector<uint8_t> eager(const std::vector<T>& x, xd::Dtype from, xd::Dtype to) {
  return xd::from_host(x.data(), from, {static_cast<int64_t>(x.size())}, xd::cpu()).to(to).to_bytes();
}
template <class S>
std::vector<uint8_t> bytes_of(const std::vector<S>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(S));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST_F(Conversions, IntegerAndBoolTargetsMatchTheReferenceCasts) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> xf = {
      nan,     -nan,    inf,    -inf,   0.0f,  -0.0f, 0.5f,  -0.5f,          0.99f,           -0.99f,  127.5f,   128.0f,
      -128.9f, -129.0f, 255.9f, 256.0f, -1.0f, 3e9f,  -3e9f, 2.147483648e9f, -2.147483648e9f, 9.3e18f, -9.3e18f, 1e30f};
  std::vector<double> xd(xf.begin(), xf.end());
  xd.insert(xd.end(), {2147483647.9, -2147483648.9, 2147483646.5, 9.2233720368547748e18, -9.2233720368547758e18,
                       4294967295.5, 1e-300});
  std::vector<long> xl = {0,
                          1,
                          -1,
                          127,
                          128,
                          255,
                          256,
                          -129,
                          2147483648L,
                          -2147483649L,
                          4294967297L,
                          std::numeric_limits<long>::max(),
                          std::numeric_limits<long>::min()};
  using xd::Dtype;
  const struct {
    const char* tag;
    Dtype dtype;
  } targets[] = {{"i8", Dtype::i8},      {"u8", Dtype::u8},   {"i32", Dtype::i32}, {"i64", Dtype::i64},
                 {"b8", Dtype::boolean}, {"f32", Dtype::f32}, {"f64", Dtype::f64}};
  for (const auto& t : targets) {
    const std::string tag = t.tag;
    auto check = [&](const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, const char* from) {
      EXPECT_EQ(got, want) << from << " -> " << tag;
    };
    auto as_bytes = [&](const char* kind, auto const& x) -> std::vector<uint8_t> {
      const std::string name = std::string("from_") + kind + "_" + tag;
      switch (t.dtype) {
        case Dtype::i8:
          return bytes_of(run<int8_t>(name.c_str(), x));
        case Dtype::u8:
        case Dtype::boolean:
          return bytes_of(run<uint8_t>(name.c_str(), x));
        case Dtype::i32:
          return bytes_of(run<int32_t>(name.c_str(), x));
        case Dtype::i64:
          return bytes_of(run<long>(name.c_str(), x));
        case Dtype::f32:
          return bytes_of(run<float>(name.c_str(), x));
        default:
          return bytes_of(run<double>(name.c_str(), x));
      }
    };
    check(as_bytes("f", xf), eager(xf, Dtype::f32, t.dtype), "f32");
    check(as_bytes("d", xd), eager(xd, Dtype::f64, t.dtype), "f64");
    check(as_bytes("l", xl), eager(xl, Dtype::i64, t.dtype), "i64");
  }
}

TEST_F(Conversions, IntegerDecodersAndConstantsByTheirBits) {
  EXPECT_EQ(run<long>("dec_b8", std::vector<uint8_t>{0, 1, 2, 255}), (std::vector<long>{0, 1, 1, 1}));
  EXPECT_EQ(run<long>("dec_i8", std::vector<int8_t>{-128, -1, 0, 127}), (std::vector<long>{-128, -1, 0, 127}));
  const std::vector<uint32_t> u = {0x3f800000u, 0x7fc00001u, 0x80000001u, 0xff800000u};
  const std::vector<float> f = run<float>("bits_f", u);
  for (size_t i = 0; i < u.size(); ++i) EXPECT_EQ(bits(f[i]), u[i]);
}

}  // namespace
