// bench_collectives: latency and bus bandwidth of xd::dist's collectives against raw MPI on the
// same buffers, in the same run (docs/performance.md quotes bench/collectives.sh's results).
//
//   mpirun -np 2 bench_collectives [--min-bytes 4] [--max-bytes 268435456] [--iters 20] [--warmup 5]
//     [--collectives all_reduce,all_gather,...] [--dtype f32] [--check 0|1] [--csv F] [--json F]
//
// Tensors are on xd::dist::local_device() (XD_BACKEND picks the backend). On a device whose memory
// is host memory (the CPU backend) raw MPI runs on the tensors' own memory (xd::data_ptr); on other
// devices it runs on CPU tensors of the same sizes, and the pinned copy bandwidth device <-> host
// is measured too ("copy_d2h" / "copy_h2d" rows), since that is the path xd::dist stages through.
//
// Definitions are NCCL-tests': "bytes" is the whole message (all_gather: the output; reduce_scatter
// and all_to_all: the input); algbw = bytes / time; busbw = algbw * 2(n-1)/n for all_reduce,
// (n-1)/n for all_gather, reduce_scatter and all_to_all, 1 for broadcast, reduce and sendrecv.
// sendrecv is a ping-pong between ranks 0 and 1 whose time is half the round trip.
//
// Timing: every iteration starts after an MPI_Barrier; each rank times its own call (for device
// tensors until the device is synchronised), the per-iteration maximum over ranks is taken, and the
// median over iterations is reported. xd and raw MPI alternate within one iteration, so noise from
// other work on the machine hits both alike and the ratio stays meaningful.
//
// check_metadata is taken at the first xd::dist::init of a process, so it cannot be varied inside
// one run: --check 0|1 sets it (XD_DIST_CHECK, when set, overrides both) and the script runs both.
//
// Exit status: 0 done, 1 a collective gave a wrong result or threw, 2 a usage error.
#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/options.hpp"

#include <xd/distributed.hpp>
#include <xd/external.hpp>
#include <xd/version.hpp>
#include <xd/xd.hpp>

#include <mpi.h>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace po = boost::program_options;
using xd::cli::UsageError;

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<std::string> kCollectives = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                                               "all_to_all", "sendrecv",   "barrier",        "copy"};

struct Options {
  uint64_t min_bytes = 4, max_bytes = 256 * kMiB;
  uint64_t iters = 20, warmup = 5;
  std::vector<std::string> collectives = kCollectives;
  xd::Dtype dtype = xd::Dtype::f32;
  bool check = true;
  std::string csv, json;
};

// Usage errors come before MPI is initialised, so the rank is not known yet: the launcher's
// environment says which process is rank 0, the only one that prints them.
bool launcher_rank0() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* r = std::getenv(v)) return std::string(r) == "0";
  return true;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  std::string min_s = "4", max_s = std::to_string(o.max_bytes), iters_s = "20", warmup_s = "5", dtype_s = "f32",
              check_s = "1";
  std::vector<std::string> colls;
  po::options_description desc("bench_collectives (run it under mpirun)");
  desc.add_options()
      ("help", "print this and exit")
      ("min-bytes", po::value(&min_s), "smallest message in bytes, 1 to 2^30 (default 4); sizes grow by 4x")
      ("max-bytes", po::value(&max_s), "largest message in bytes, --min-bytes to 2^30 (default 268435456 = 256 MiB)")
      ("iters", po::value(&iters_s), "timed iterations per size, 1 to 100000 (default 20; above 16 MiB scaled down "
                                     "by size, at least min(5, iters))")
      ("warmup", po::value(&warmup_s), "untimed iterations first, 0 to 100000 (default 5; at most 2 above 16 MiB)")
      ("collectives", po::value(&colls)->composing(),
       "comma-separated (repeatable): all_reduce all_gather reduce_scatter broadcast reduce all_to_all sendrecv "
       "barrier copy (pinned copies; device tensors only). Default: all")
      ("dtype", po::value(&dtype_s), "element type (default f32); raw MPI reductions only for f32 f64 i8 u8 i32 i64")
      ("check", po::value(&check_s), "InitOptions::check_metadata, 0 or 1 (default 1; XD_DIST_CHECK overrides)")
      ("csv", po::value(&o.csv), "write the results as CSV to this file (rank 0)")
      ("json", po::value(&o.json), "write the results as JSON to this file (rank 0)");
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(desc).run();
    xd::cli::reject_positional(parsed);
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    if (launcher_rank0()) std::cout << desc << "\n";
    std::exit(0);
  }
  // At most 1 GiB: MPI's counts are int, and raw MPI gets byte counts.
  o.min_bytes = xd::cli::parse_count("--min-bytes", min_s, 1, uint64_t{1} << 30);
  o.max_bytes = xd::cli::parse_count("--max-bytes", max_s, o.min_bytes, uint64_t{1} << 30);
  o.iters = xd::cli::parse_count("--iters", iters_s, 1, 100000);
  o.warmup = xd::cli::parse_count("--warmup", warmup_s, 0, 100000);
  o.check = xd::cli::parse_count("--check", check_s, 0, 1) == 1;
  try {
    o.dtype = xd::parse_dtype(dtype_s);
  } catch (const xd::Error& e) {
    throw UsageError("--dtype: " + std::string(e.what()));
  }
  if (!colls.empty()) {
    o.collectives.clear();
    for (const auto& c : colls)
      for (const auto& name : split_list(c)) {
        if (std::find(kCollectives.begin(), kCollectives.end(), name) == kCollectives.end())
          throw UsageError("--collectives: unknown collective '" + name + "'; see --help");
        if (std::find(o.collectives.begin(), o.collectives.end(), name) == o.collectives.end())
          o.collectives.push_back(name);
      }
  }
  xd::cli::require_nonempty(vm, "--csv", "file");
  xd::cli::require_nonempty(vm, "--json", "file");
  if (launcher_rank0()) {
    if (!o.csv.empty()) xd::cli::require_writable("--csv", o.csv);
    if (!o.json.empty()) xd::cli::require_writable("--json", o.json);
  }
  return o;
}

// The MPI type raw reductions use, or MPI_DATATYPE_NULL where MPI has none (f16, bf16, fp8, bool:
// xd::dist widens those to f32, which has no raw counterpart worth comparing).
MPI_Datatype mpi_type(xd::Dtype d) {
  switch (d) {
    case xd::Dtype::f32: return MPI_FLOAT;
    case xd::Dtype::f64: return MPI_DOUBLE;
    case xd::Dtype::i8: return MPI_INT8_T;
    case xd::Dtype::u8: return MPI_UINT8_T;
    case xd::Dtype::i32: return MPI_INT32_T;
    case xd::Dtype::i64: return MPI_INT64_T;
    default: return MPI_DATATYPE_NULL;
  }
}

double bus_factor(const std::string& c, int n) {
  if (c == "all_reduce") return 2.0 * (n - 1) / n;
  if (c == "all_gather" || c == "reduce_scatter" || c == "all_to_all") return double(n - 1) / n;
  return 1.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// One (collective, size) case: the xd call, the raw MPI call (empty when there is none) and a check
// of the first xd call's result on this rank (empty when not checked).
struct Case {
  std::string name;
  uint64_t bytes = 0;
  int64_t count = 0;  // elements of the message as "bytes" counts them
  std::function<void()> xd_call, raw_call;
  std::function<bool()> verify;
  bool rank_local = false;  // copies: no communication, so no bus factor and no raw counterpart
};

struct Result {
  std::string name;
  uint64_t bytes;
  int64_t count;
  uint64_t iters;
  double xd_us, raw_us;
};

class Bench {
 public:
  Bench(const Options& o, xd::dist::ProcessGroup pg)
      : o_(o), pg_(std::move(pg)), rank_(pg_.rank()), n_(pg_.size()), dev_(xd::dist::local_device()),
        host_(dev_.properties().host_pointers) {}

  int run() {
    if (rank_ == 0) print_header();
    // The ping-pong runs in a group of ranks 0 and 1: with more ranks, ranks 2.. would otherwise
    // reach the next world collective having issued fewer calls, and xd::dist's metadata check
    // counts send/recv in the group's sequence number (it reports a mismatch; see the report).
    const bool pp = std::find(o_.collectives.begin(), o_.collectives.end(), "sendrecv") != o_.collectives.end();
    pair_ = n_ > 2 && pp ? pg_.new_group({0, 1}) : pg_;
    for (const auto& c : o_.collectives) {
      if (c == "barrier") {
        measure(make_case(c, 0));
        continue;
      }
      if (c == "sendrecv" && n_ < 2) continue;
      if (c == "copy" && host_) continue;  // the CPU has no pinned memory: nothing is staged
      for (uint64_t b = o_.min_bytes; b <= o_.max_bytes; b *= 4) {
        Case k = make_case(c, b);
        if (k.count > 0) measure(k);
        if (b > o_.max_bytes / 4) break;  // b *= 4 would overflow or pass the end
      }
    }
    if (rank_ == 0) write_files();
    return failed_ ? 1 : 0;
  }

 private:
  // Tensors of the case, on the device, and the host buffers raw MPI uses (the same memory on a
  // host-memory device). Initial values make the first xd call's result predictable.
  xd::Tensor dev_tensor(int64_t numel, double value) const { return xd::full({numel}, value, o_.dtype, dev_); }
  xd::Tensor host_twin(const xd::Tensor& t) const {
    return host_ ? t : xd::zeros({t.numel()}, o_.dtype, xd::cpu());
  }
  static void* ptr(const xd::Tensor& t) { return xd::data_ptr(t).ptr; }
  // Block r of `count` elements (one block per rank) holds r everywhere: all_gather, all_to_all.
  bool blocks_hold_ranks(const xd::Tensor& out, int64_t count) const {
    const int64_t blk = count / n_;
    for (int r = 0; r < n_; ++r) {
      if (!all_equal(out, r * blk, (r + 1) * blk, r)) return false;
    }
    return true;
  }
  bool all_equal(const xd::Tensor& t, int64_t begin, int64_t end, double want) const {
    // First and last element of the block: enough to catch a wrong offset, count or reduction
    // without reading 256 MiB back from a device.
    if (begin >= end) return true;
    return t.at<double>({begin}) == want && t.at<double>({end - 1}) == want;
  }

  Case make_case(const std::string& c, uint64_t bytes) {
    Case k;
    k.name = c;
    const auto item = static_cast<uint64_t>(xd::itemsize(o_.dtype));
    int64_t count = static_cast<int64_t>(bytes / item);
    // Messages split into one block per rank need a multiple of n elements.
    if (c == "all_gather" || c == "reduce_scatter" || c == "all_to_all") count -= count % n_;
    k.count = count;
    k.bytes = static_cast<uint64_t>(count) * item;
    const bool dtype_ok = o_.dtype != xd::Dtype::boolean;  // bool sums are logical or: not n
    const MPI_Datatype red = mpi_type(o_.dtype);
    const int icount = static_cast<int>(count);  // --max-bytes <= 2^30: fits
    const int ibytes = static_cast<int>(k.bytes);
    const int block_bytes = ibytes / std::max(n_, 1);
    const auto pg = pg_;
    if (c == "barrier") {
      k.count = 1;  // one row, no message
      k.xd_call = [pg] { pg.barrier(); };
      k.raw_call = [] { MPI_Barrier(MPI_COMM_WORLD); };
      return k;
    }
    if (count == 0) return k;
    if (c == "all_reduce") {
      xd::Tensor t = dev_tensor(count, 1), h = host_twin(t);
      k.xd_call = [pg, t] { pg.all_reduce(t); };
      if (red != MPI_DATATYPE_NULL)
        k.raw_call = [h, icount, red] { MPI_Allreduce(MPI_IN_PLACE, ptr(h), icount, red, MPI_SUM, MPI_COMM_WORLD); };
      if (dtype_ok) k.verify = [this, t, count] { return all_equal(t, 0, count, n_); };
    } else if (c == "all_gather") {
      xd::Tensor in = dev_tensor(count / n_, rank_), out = dev_tensor(count, -1);
      xd::Tensor hin = host_twin(in), hout = host_twin(out);
      k.xd_call = [pg, in, out] { pg.all_gather(out, in); };
      k.raw_call = [hin, hout, block_bytes] {
        MPI_Allgather(ptr(hin), block_bytes, MPI_BYTE, ptr(hout), block_bytes, MPI_BYTE, MPI_COMM_WORLD);
      };
      if (dtype_ok) k.verify = [this, out, count] { return blocks_hold_ranks(out, count); };
    } else if (c == "reduce_scatter") {
      xd::Tensor in = dev_tensor(count, 1), out = dev_tensor(count / n_, 0);
      xd::Tensor hin = host_twin(in), hout = host_twin(out);
      k.xd_call = [pg, in, out] { pg.reduce_scatter(out, in); };
      if (red != MPI_DATATYPE_NULL)
        k.raw_call = [hin, hout, red, icount, this] {
          MPI_Reduce_scatter_block(ptr(hin), ptr(hout), icount / n_, red, MPI_SUM, MPI_COMM_WORLD);
        };
      if (dtype_ok) k.verify = [this, out] { return all_equal(out, 0, out.numel(), n_); };
    } else if (c == "broadcast") {
      xd::Tensor t = dev_tensor(count, rank_ == 0 ? 1 : 0), h = host_twin(t);
      k.xd_call = [pg, t] { pg.broadcast(t, 0); };
      k.raw_call = [h, ibytes] { MPI_Bcast(ptr(h), ibytes, MPI_BYTE, 0, MPI_COMM_WORLD); };
      if (dtype_ok) k.verify = [this, t, count] { return all_equal(t, 0, count, 1); };
    } else if (c == "reduce") {
      xd::Tensor t = dev_tensor(count, 1), h = host_twin(t);
      k.xd_call = [pg, t] { pg.reduce(t, 0); };
      if (red != MPI_DATATYPE_NULL)
        k.raw_call = [h, icount, red, this] {
          MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : ptr(h), rank_ == 0 ? ptr(h) : nullptr, icount, red, MPI_SUM, 0,
                     MPI_COMM_WORLD);
        };
      if (dtype_ok) k.verify = [this, t, count] { return all_equal(t, 0, count, rank_ == 0 ? n_ : 1); };
    } else if (c == "all_to_all") {
      xd::Tensor in = dev_tensor(count, rank_), out = dev_tensor(count, -1);
      xd::Tensor hin = host_twin(in), hout = host_twin(out);
      k.xd_call = [pg, in, out] { pg.all_to_all(out, in); };
      k.raw_call = [hin, hout, block_bytes] {
        MPI_Alltoall(ptr(hin), block_bytes, MPI_BYTE, ptr(hout), block_bytes, MPI_BYTE, MPI_COMM_WORLD);
      };
      if (dtype_ok) k.verify = [this, out, count] { return blocks_hold_ranks(out, count); };
    } else if (c == "sendrecv") {
      // Rank 0 sends and receives back, rank 1 echoes; other ranks only take part in the barriers.
      xd::Tensor t = dev_tensor(count, rank_ == 0 ? 1 : 0), h = host_twin(t);
      const int r = rank_;
      const auto pair = pair_;
      k.xd_call = [pair, t, r] {
        if (r == 0) {
          pair.send(t, 1);
          pair.recv(t, 1);
        } else if (r == 1) {
          pair.recv(t, 0);
          pair.send(t, 0);
        }
      };
      k.raw_call = [h, ibytes, r] {
        if (r == 0) MPI_Send(ptr(h), ibytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        if (r <= 1) MPI_Recv(ptr(h), ibytes, MPI_BYTE, 1 - r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (r == 1) MPI_Send(ptr(h), ibytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
      };
      if (dtype_ok && rank_ <= 1) k.verify = [this, t, count] { return all_equal(t, 0, count, 1); };
    } else if (c == "copy") {
      // The staging path's two halves, as xd::dist uses them: device -> pinned host and back, both
      // enqueued (non_blocking) and then waited for. Reported as two rows by measure().
      xd::Tensor t = dev_tensor(count, 1);
      xd::Tensor pinned = xd::zeros({count}, o_.dtype, xd::cpu()).pin_memory(dev_);
      const xd::Device d = dev_;
      k.rank_local = true;
      k.xd_call = [pinned, t, d]() mutable {  // device -> pinned host
        pinned.copy_(t, true);
        xd::synchronize(d);
      };
      k.raw_call = [pinned, t, d]() mutable {  // pinned host -> device
        t.copy_(pinned, true);
        xd::synchronize(d);
      };
      k.verify = [pinned, count] { return pinned.at<double>({0}) == 1 && pinned.at<double>({count - 1}) == 1; };
    }
    return k;
  }

  // Seconds of one call on this rank, after a barrier that lines the ranks up.
  double timed(const std::function<void()>& f) const {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    if (!host_) xd::synchronize(dev_);  // a blocking call's device copies may still be enqueued
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void measure(const Case& k) {
    // Fewer iterations for big messages, so that a 256 MiB sweep on a small machine ends in minutes;
    // every rank computes the same numbers, as the collectives require.
    uint64_t iters = o_.iters, warmup = o_.warmup;
    if (k.bytes > 16 * kMiB) {
      iters = std::max(std::min<uint64_t>(o_.iters, 5), o_.iters * 16 * kMiB / k.bytes);
      warmup = std::min<uint64_t>(warmup, 2);
    }
    std::vector<double> xs(iters), rs(iters, 0.0);
    int ok = 1;
    try {
      for (uint64_t i = 0; i < warmup + iters; ++i) {
        const double x = timed(k.xd_call);
        if (i == 0 && k.verify && !k.verify()) ok = 0;
        const double r = k.raw_call ? timed(k.raw_call) : 0.0;
        if (i >= warmup) xs[i - warmup] = x, rs[i - warmup] = r;
      }
    } catch (const std::exception& e) {
      // Not recoverable: the other ranks are inside a collective this rank left. Abort the job.
      std::fprintf(stderr, "bench_collectives: rank %d: %s %llu bytes: %s\n", rank_, k.name.c_str(),
                   static_cast<unsigned long long>(k.bytes), e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, xs.data(), static_cast<int>(iters), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, rs.data(), static_cast<int>(iters), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
      failed_ = true;
      if (rank_ == 0)
        std::fprintf(stderr, "bench_collectives: %s %llu bytes: WRONG RESULT on some rank\n", k.name.c_str(),
                     static_cast<unsigned long long>(k.bytes));
    }
    // A ping-pong's time is a round trip: half of it is one message.
    const double scale = k.name == "sendrecv" ? 0.5e6 : 1e6;
    if (k.rank_local) {  // copy: the two timed calls are the two directions
      add({"copy_d2h", k.bytes, k.count, iters, median(xs) * 1e6, kNaN});
      add({"copy_h2d", k.bytes, k.count, iters, median(rs) * 1e6, kNaN});
    } else {
      add({k.name, k.bytes, k.count, iters, median(xs) * scale, k.raw_call ? median(rs) * scale : kNaN});
    }
  }

  double busbw(const Result& r, double us) const {  // GB/s (1e9 bytes)
    if (r.name == "barrier" || !(us > 0)) return kNaN;
    const double algbw = static_cast<double>(r.bytes) / (us * 1e-6) / 1e9;
    return r.name.rfind("copy_", 0) == 0 ? algbw : algbw * bus_factor(r.name, n_);
  }

  static std::string num(double v, int prec) {
    if (std::isnan(v)) return "-";
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", prec, v);
    return b;
  }

  void print_header() const {
    std::printf("# bench_collectives: xdispatch %s, %d ranks, device %s (%s), dtype %s, check_metadata %d%s\n",
                xd::version(), n_, dev_.str().c_str(), dev_.properties().name.c_str(), xd::dtype_name(o_.dtype),
                int(o_.check), std::getenv("XD_DIST_CHECK") ? " (XD_DIST_CHECK set: it decides)" : "");
    std::printf("# raw MPI on %s; times: median over iterations of the max over ranks\n",
                host_ ? "the same buffers" : "host buffers of the same size");
    std::printf("%-15s %11s %-5s %5s %11s %11s %9s %10s %10s %7s\n", "collective", "bytes", "dtype", "iters",
                "xd_us", "raw_us", "added_us", "xd_busbw", "raw_busbw", "ratio");
    std::fflush(stdout);
  }

  void add(const Result& r) {
    results_.push_back(r);
    if (rank_ != 0) return;
    const double xb = busbw(r, r.xd_us), rb = busbw(r, r.raw_us);
    std::printf("%-15s %11llu %-5s %5llu %11s %11s %9s %10s %10s %7s\n", r.name.c_str(),
                static_cast<unsigned long long>(r.bytes), xd::dtype_name(o_.dtype),
                static_cast<unsigned long long>(r.iters), num(r.xd_us, 1).c_str(), num(r.raw_us, 1).c_str(),
                num(r.xd_us - r.raw_us, 1).c_str(), num(xb, 3).c_str(), num(rb, 3).c_str(),
                num(xb / rb, 3).c_str());
    std::fflush(stdout);
  }

  void write_files() const {
    const char* env_check = std::getenv("XD_DIST_CHECK");
    nlohmann::json rows = nlohmann::json::array();
    std::string csv = xd::cli::csv_row({"collective", "bytes", "count", "dtype", "ranks", "device", "check_metadata",
                                        "iters", "xd_us", "raw_us", "added_us", "xd_algbw_gbps", "xd_busbw_gbps",
                                        "raw_algbw_gbps", "raw_busbw_gbps", "busbw_ratio"});
    const std::string check = env_check ? env_check : (o_.check ? "1" : "0");
    auto jnum = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    for (const auto& r : results_) {
      const double xa = r.name == "barrier" ? kNaN : static_cast<double>(r.bytes) / (r.xd_us * 1e3);
      const double ra = r.name == "barrier" ? kNaN : static_cast<double>(r.bytes) / (r.raw_us * 1e3);
      const double xb = busbw(r, r.xd_us), rb = busbw(r, r.raw_us);
      csv += xd::cli::csv_row({r.name, std::to_string(r.bytes), std::to_string(r.count), xd::dtype_name(o_.dtype),
                               std::to_string(n_), dev_.str(), check, std::to_string(r.iters), num(r.xd_us, 3),
                               num(r.raw_us, 3), num(r.xd_us - r.raw_us, 3), num(xa, 4), num(xb, 4), num(ra, 4),
                               num(rb, 4), num(xb / rb, 4)});
      rows.push_back({{"collective", r.name}, {"bytes", r.bytes}, {"count", r.count}, {"iters", r.iters},
                      {"xd_us", jnum(r.xd_us)}, {"raw_us", jnum(r.raw_us)}, {"added_us", jnum(r.xd_us - r.raw_us)},
                      {"xd_algbw_gbps", jnum(xa)}, {"xd_busbw_gbps", jnum(xb)}, {"raw_algbw_gbps", jnum(ra)},
                      {"raw_busbw_gbps", jnum(rb)}, {"busbw_ratio", jnum(xb / rb)}});
    }
    if (!o_.csv.empty()) std::ofstream(o_.csv, std::ios::binary) << csv;
    if (!o_.json.empty()) {
      nlohmann::json j = {{"xdispatch", xd::version()},
                          {"ranks", n_},
                          {"device", dev_.str()},
                          {"device_name", dev_.properties().name},
                          {"host_memory", host_},
                          {"dtype", xd::dtype_name(o_.dtype)},
                          {"check_metadata", check},
                          {"iters", o_.iters},
                          {"warmup", o_.warmup},
                          {"timing", "median over iterations of the per-iteration max over ranks, after a barrier"},
                          {"results", rows}};
      std::ofstream(o_.json, std::ios::binary) << j.dump(2) << "\n";
    }
  }

  const Options& o_;
  xd::dist::ProcessGroup pg_, pair_;
  int rank_, n_;
  xd::Device dev_;
  bool host_;
  bool failed_ = false;
  std::vector<Result> results_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const UsageError& e) {
    if (launcher_rank0()) std::fprintf(stderr, "bench_collectives: error: %s\n", e.what());
    return 2;
  }
  int status = 0;
  try {
    xd::dist::InitOptions init;
    init.check_metadata = o.check;
    xd::dist::ProcessGroup world = xd::dist::init(init);
    status = Bench(o, world).run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_collectives: error: %s\n", e.what());
    // The other ranks may be waiting in a collective this rank will never call: end the job.
    if (xd::dist::is_initialized()) MPI_Abort(MPI_COMM_WORLD, 1);
    status = 1;
  }
  xd::dist::finalize();
  return status;
}
