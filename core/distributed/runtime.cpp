// init / finalize and what belongs to the process: MPI itself, the world group, the node-local
// rank and device, the options (XD_DIST_*), the watchdog and the terminate handler.
#include "mpi_types.hpp"
#include "state.hpp"
#include "watchdog.hpp"

#include <xd/log.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace xd::dist {
namespace detail {
namespace {

std::mutex& init_mutex() {
  static std::mutex m;
  return m;
}
Runtime*& runtime_slot() {
  static Runtime* r = nullptr;
  return r;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

void apply_env(InitOptions& o) {
  if (const char* v = env("XD_DIST_CHECK")) {
    const std::string s(v);
    if (s != "0" && s != "1") throw ValueError("XD_DIST_CHECK='" + s + "': expected 0 or 1");
    o.check_metadata = s == "1";
  }
  if (const char* v = env("XD_DIST_TIMEOUT")) {
    const std::string s(v);
    char* end = nullptr;
    const double seconds = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds < 0 || seconds > 1e7) {
      throw ValueError("XD_DIST_TIMEOUT='" + s + "': expected seconds, a number from 0 (no timeout) to 10000000");
    }
    o.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000.0)));
  }
  if (const char* v = env("XD_DIST_CHUNK_BYTES")) {
    const std::string s(v);
    uint64_t n = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || p != s.data() + s.size()) {
      throw ValueError("XD_DIST_CHUNK_BYTES='" + s + "': expected a whole number of bytes");
    }
    o.chunk_bytes = n;
  }
  if (o.chunk_bytes < 1024 || o.chunk_bytes > (uint64_t{1} << 30)) {
    throw ValueError("xd::dist: chunk_bytes " + std::to_string(o.chunk_bytes) +
                     " is out of range: expected 1024 bytes to 1 GiB (InitOptions::chunk_bytes, XD_DIST_CHUNK_BYTES)");
  }
  if (o.timeout.count() < 0) throw ValueError("xd::dist: a negative timeout (InitOptions::timeout)");
}

[[noreturn]] void on_terminate() {
  const Runtime* r = runtime_slot();
  std::string what = "std::terminate was called without an active exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      what = std::string("uncaught exception: ") + ex.what();
    } catch (...) {
      what = "uncaught exception of a type not derived from std::exception";
    }
  }
  std::fprintf(stderr, "xd::dist: rank %d of %d failed: %s. Aborting the job.\n", r ? r->world_rank : -1,
               r ? r->world_size : -1, what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

Device pick_local_device(int local_rank) {
  const Device preferred = default_device();
  std::vector<Device> same;
  for (const Device& d : devices()) {
    if (d.type() == preferred.type()) same.push_back(d);
  }
  if (same.empty()) return preferred;
  return same[static_cast<size_t>(local_rank) % same.size()];
}

}  // namespace

Runtime* runtime() { return runtime_slot(); }

Runtime& checked_runtime(const char* what) {
  Runtime* r = runtime_slot();
  if (r == nullptr) {
    throw DistributedError(std::string("xd::dist::") + what +
                           ": the process group is not initialised (call xd::dist::init() first)");
  }
  return *r;
}

std::string where(const ProcessGroup::State& g, const char* op) {
  return std::string("xd::dist: ") + op + " on group " + g.name + " (rank " + std::to_string(g.rank) + " of " +
         std::to_string(g.size) + ")";
}

}  // namespace detail

const char* reduce_op_name(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::avg: return "avg";
    case ReduceOp::product: return "product";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
  }
  return "?";
}

ProcessGroup init(const InitOptions& options) {
  std::lock_guard lock(detail::init_mutex());
  detail::Runtime*& slot = detail::runtime_slot();
  if (slot != nullptr) return ProcessGroup(slot->world);
  auto r = std::make_unique<detail::Runtime>();
  r->options = options;
  detail::apply_env(r->options);

  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (finalised) throw DistributedError("xd::dist::init: MPI has already been finalised in this process");
  int provided = 0;
  if (!initialised) {
    detail::check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    r->initialised_mpi = true;
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (r->initialised_mpi) MPI_Finalize();
    throw DistributedError(
        "xd::dist::init: MPI provides thread level " + std::to_string(provided) +
        ", xdispatch needs MPI_THREAD_MULTIPLE (the watchdog and asynchronous collectives call MPI from their own "
        "threads); initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or let xd::dist::init do it");
  }

  auto world = std::make_shared<ProcessGroup::State>();
  MPI_Comm_dup(MPI_COMM_WORLD, &world->comm);  // our own, so the application's messages never meet ours
  MPI_Comm_set_errhandler(world->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(world->comm, &world->rank);
  MPI_Comm_size(world->comm, &world->size);
  world->name = "world";
  for (int i = 0; i < world->size; ++i) world->world_ranks.push_back(i);
  r->world_rank = world->rank;
  r->world_size = world->size;

  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &r->local_rank);
    MPI_Comm_size(node, &r->local_size);
    MPI_Comm_free(&node);
  }
  r->local_device = detail::pick_local_device(r->local_rank);
  if (r->options.set_current_device) set_current_device(r->local_device);
  if (r->options.abort_on_terminate) std::set_terminate(detail::on_terminate);
  detail::start_watchdog(r->options.timeout, r->world_rank, r->world_size);

  r->world = world;
  r->groups.push_back(world);
  slot = r.release();
  static const bool at_exit = [] { return std::atexit([] { finalize(); }) == 0; }();
  (void)at_exit;
  return ProcessGroup(slot->world);
}

bool is_initialized() {
  std::lock_guard lock(detail::init_mutex());
  return detail::runtime_slot() != nullptr;
}

ProcessGroup world() { return ProcessGroup(detail::checked_runtime("world").world); }
int local_rank() { return detail::checked_runtime("local_rank").local_rank; }
int local_size() { return detail::checked_runtime("local_size").local_size; }
Device local_device() { return detail::checked_runtime("local_device").local_device; }

void finalize() {
  std::lock_guard lock(detail::init_mutex());
  detail::Runtime*& slot = detail::runtime_slot();
  if (slot == nullptr) return;
  std::unique_ptr<detail::Runtime> r(slot);
  {
    std::lock_guard g(r->groups_mutex);
    // Sub-groups first: their communicators were made from the world's.
    for (auto it = r->groups.rbegin(); it != r->groups.rend(); ++it) {
      if (auto s = it->lock()) s->shut_down();
    }
  }
  detail::stop_watchdog();
  r->world.reset();
  slot = nullptr;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (r->initialised_mpi && !finalised) MPI_Finalize();
}

}  // namespace xd::dist
