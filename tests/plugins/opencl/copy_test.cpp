// Copies and casts on the opencl device against the CPU reference: every (source, target) dtype
// pair with the values casts get wrong (NaN, infinities, signed zeros, out-of-range, halfway
// cases of round-to-nearest-even, fp8 saturation and subnormals), strided and broadcast sources,
// strided destinations, and transfers between the devices.
#include "test_util.hpp"

namespace {

using namespace xdo;

std::vector<double> cast_values() {
  const double inf = std::numeric_limits<double>::infinity();
  return {0.0,     -0.0,   1.0,      -1.0,      0.5,       1.5,    2.5,     -2.5,   127.0,    128.0,
          -129.0,  255.0,  256.0,    300.7,     -300.7,    65504,  65520,   70000,  448.0,    464.0,
          57344.0, 1e-3,   6e-8,     3e-5,      1e-40,     1e10,   -1e10,   3e9,    2147483647.0, -2147483648.0,
          1e19,    -1e19,  inf,      -inf,      std::nan(""), 0.1,  1.0 / 3, 1 + 1.0 / 1024 + 1.0 / 4096, 2049.0, 33554433.0};
}

TEST(OpenclCopy, CastsBetweenEveryPairOfDtypesMatchTheCpuExactly) {
  const std::vector<double> v = cast_values();
  for (Dtype from : usable(all_dtypes())) {
    const Tensor src = make(v, {static_cast<int64_t>(v.size())}, from);
    for (Dtype to : usable(all_dtypes()))
      EXPECT_TRUE(same_as_cpu({src}, [&](const auto& in) { return in[0].to(to); }, kExact))
          << name_of(from) << " -> " << name_of(to);
  }
}

TEST(OpenclCopy, CastsOfEveryFp8AndHalfBitPatternMatchTheCpu) {
  std::vector<double> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[static_cast<size_t>(i)] = i;
  const Tensor all8 = make(bytes, {256}, Dtype::u8);
  for (Dtype fp8 : {Dtype::f8e4m3fn, Dtype::f8e5m2}) {
    // Reinterpret the 256 byte patterns as fp8 (a raw host round trip), then decode on both devices.
    const std::vector<uint8_t> raw = all8.to_bytes();
    const Tensor src = xd::from_host(raw.data(), fp8, {256}, cpu());
    for (Dtype to : usable({Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i32, Dtype::boolean}))
      EXPECT_TRUE(same_as_cpu({src}, [&](const auto& in) { return in[0].to(to); }, kExact))
          << name_of(fp8) << " -> " << name_of(to);
  }
  // Every f16 pattern to f32 and back to the narrow formats (rounding of all of them).
  std::vector<uint16_t> halves(65536);
  for (int i = 0; i < 65536; ++i) halves[static_cast<size_t>(i)] = static_cast<uint16_t>(i);
  const Tensor h = xd::from_host(halves.data(), Dtype::f16, {65536}, cpu());
  for (Dtype to : {Dtype::f32, Dtype::bf16, Dtype::f8e4m3fn, Dtype::f8e5m2, Dtype::i8, Dtype::u8})
    EXPECT_TRUE(same_as_cpu({h}, [&](const auto& in) { return in[0].to(to); }, kExact)) << "f16 -> " << name_of(to);
  // Random f32 bit patterns (every exponent) to the narrow formats.
  std::mt19937 rng(5);
  std::vector<uint32_t> words(20000);
  for (auto& w : words) w = rng();
  const Tensor f = xd::from_host(words.data(), Dtype::f32, {20000}, cpu());
  for (Dtype to : {Dtype::f16, Dtype::bf16, Dtype::f8e4m3fn, Dtype::f8e5m2, Dtype::i32, Dtype::i64, Dtype::u8})
    EXPECT_TRUE(same_as_cpu({f}, [&](const auto& in) { return in[0].to(to); }, kExact)) << "f32 -> " << name_of(to);
}

TEST(OpenclCopy, SameDtypeCopiesKeepNanPayloads) {
  const std::vector<uint32_t> words = {0x7fc00001u, 0xffc12345u, 0x7f800001u, 0x3f800000u, 0x80000000u};
  const Tensor f = xd::from_host(words.data(), Dtype::f32, {5}, ocl());
  const Tensor copy = f.clone();
  const Tensor strided = xd::zeros({5, 2}, Dtype::f32, ocl());
  Tensor col = strided.select(1, 1);
  col.copy_(f);
  EXPECT_EQ(copy.to_bytes(), f.to_bytes());
  EXPECT_EQ(col.contiguous().to_bytes(), f.to_bytes());
}

TEST(OpenclCopy, StridedBroadcastAndTransposedSourcesMatchTheCpu) {
  for (Dtype d : usable({Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::i64, Dtype::boolean,
                         Dtype::f8e4m3fn})) {
    const Tensor x = random_tensor({4, 6, 10}, d, 3);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return in[0].permute({2, 0, 1}).contiguous(); }, kExact))
        << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return in[0].slice(2, 1, 10, 3).to(Dtype::f32); }, kExact))
        << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return in[0].select(1, 2).unsqueeze(1).expand({4, 5, 10}).clone(); },
                            kExact))
        << name_of(d);
    EXPECT_TRUE(same_as_cpu({x}, [](const auto& in) { return in[0].transpose(0, 2).to(Dtype::i32); }, kExact))
        << name_of(d);
  }
}

TEST(OpenclCopy, CopiesIntoStridedDestinationsWriteOnlyTheirElements) {
  const Tensor src = random_tensor({3, 7}, Dtype::f32, 9);
  Tensor dst_cpu = xd::full({7, 9}, -1, Dtype::f16, cpu());
  Tensor dst_ocl = xd::full({7, 9}, -1, Dtype::f16, ocl());
  dst_cpu.slice(1, 2, 8, 2).copy_(src.t());
  dst_ocl.slice(1, 2, 8, 2).copy_(src.to(ocl()).t());
  EXPECT_TRUE(all_close(read(dst_ocl), read(dst_cpu), kExact));
}

TEST(OpenclCopy, EmptyAndSingleElementCopies) {
  for (Dtype d : usable(all_dtypes())) {
    EXPECT_TRUE(same_as_cpu({random_tensor({0, 4}, d, 1)}, [](const auto& in) { return in[0].t().contiguous(); }, kExact));
    EXPECT_TRUE(same_as_cpu({random_tensor({1}, d, 2)}, [](const auto& in) { return in[0].to(Dtype::f32); }, kExact));
  }
}

TEST(OpenclCopy, LargeTransfersRoundTripBetweenDevices) {
  const Tensor x = random_tensor({1 << 20}, Dtype::f32, 4);
  const Tensor back = x.to(ocl()).to(cpu());
  EXPECT_EQ(back.to_bytes(), x.to_bytes());
  const Tensor odd = random_tensor({1000003}, Dtype::u8, 5);
  EXPECT_EQ(odd.to(ocl()).to(cpu()).to_bytes(), odd.to_bytes());
}

}  // namespace
