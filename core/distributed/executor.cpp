// Running a group's collectives in issue order: blocking ones inline on the caller's thread (no
// hand-off, so a small all_reduce costs what MPI costs), asynchronous ones on the group's worker
// thread; and the Work handle that reports completion and errors.
#include "state.hpp"

namespace xd::dist {

void Work::State::finish(std::exception_ptr e) {
  {
    std::lock_guard lock(mutex);
    error = std::move(e);
    done = true;
    body = nullptr;  // drops the tensors the collective held
  }
  cv.notify_all();
}

void Work::wait() const {
  if (!state_) return;
  {
    std::unique_lock lock(state_->mutex);
    state_->cv.wait(lock, [&] { return state_->done; });
    if (state_->error) std::rethrow_exception(state_->error);
  }
  for (const auto& [device, event] : state_->completion) event.block(current_stream(device));
}

bool Work::is_completed() const {
  if (!state_) return true;
  std::lock_guard lock(state_->mutex);
  return state_->done;
}

std::exception_ptr Work::exception() const {
  if (!state_) return nullptr;
  std::lock_guard lock(state_->mutex);
  return state_->error;
}

namespace {

thread_local ProcessGroup::State::Lane* t_lane = nullptr;

void run_body(ProcessGroup::State::Lane& lane, Work::State& w) {
  ProcessGroup::State::Lane* previous = t_lane;
  t_lane = &lane;
  std::exception_ptr error;
  try {
    w.body(w);
  } catch (...) {
    error = std::current_exception();
  }
  t_lane = previous;
  w.finish(std::move(error));
}

void worker_loop(ProcessGroup::State::Lane& g) {
  std::unique_lock lock(g.mutex);
  for (;;) {
    g.cv.wait(lock, [&] { return g.stopping || (!g.queue.empty() && g.queue.front()->ticket == g.next_to_run); });
    if (g.queue.empty() || g.queue.front()->ticket != g.next_to_run) {
      if (g.stopping && g.queue.empty()) return;
      continue;
    }
    std::shared_ptr<Work::State> w = std::move(g.queue.front());
    g.queue.pop_front();
    lock.unlock();
    run_body(g, *w);
    lock.lock();
    ++g.next_to_run;
    g.cv.notify_all();
  }
}

}  // namespace

namespace detail {

ProcessGroup::State::Lane& current_lane() {
  if (t_lane == nullptr) throw DistributedError("xd::dist: internal error: staging outside a collective");
  return *t_lane;
}

Work submit(ProcessGroup::State& g, ProcessGroup::State::Lane& lane, std::function<void(Work::State&)> body,
            bool async_op) {
  auto w = std::make_shared<Work::State>();
  w->body = std::move(body);
  std::unique_lock lock(lane.mutex);
  if (lane.stopping) throw DistributedError(where(g, "collective") + ": the process group has been finalised");
  w->ticket = lane.issued++;
  if (async_op) {
    if (!lane.worker.joinable()) lane.worker = std::thread([&lane] { worker_loop(lane); });
    lane.queue.push_back(w);
    lock.unlock();
    lane.cv.notify_all();
    return Work(w);
  }
  lane.cv.wait(lock, [&] { return lane.next_to_run == w->ticket; });
  lock.unlock();
  run_body(lane, *w);
  lock.lock();
  ++lane.next_to_run;
  lock.unlock();
  lane.cv.notify_all();
  Work result(w);
  result.wait();
  return result;
}

}  // namespace detail

ProcessGroup::State::Lane& ProcessGroup::State::p2p_lane(bool recv, int peer) {
  std::lock_guard lock(lanes_mutex);
  std::unique_ptr<Lane>& lane = p2p[{recv ? 1 : 0, peer}];
  if (!lane) lane = std::make_unique<Lane>();
  return *lane;
}

namespace {
void stop_lane(ProcessGroup::State::Lane& lane) {
  {
    std::lock_guard lock(lane.mutex);
    lane.stopping = true;
  }
  lane.cv.notify_all();
  if (lane.worker.joinable() && lane.worker.get_id() != std::this_thread::get_id()) lane.worker.join();
  lane.staging.clear();
}
}  // namespace

void ProcessGroup::State::shut_down() {
  stop_lane(collectives);
  {
    std::lock_guard lock(lanes_mutex);
    for (auto& [key, lane] : p2p) stop_lane(*lane);
  }
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (comm != MPI_COMM_NULL && !finalised) MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

ProcessGroup::State::~State() {
  shut_down();
  // Only when a worker itself dropped the last reference: it cannot join itself.
  if (collectives.worker.joinable()) collectives.worker.detach();
  for (auto& [key, lane] : p2p) {
    if (lane->worker.joinable()) lane->worker.detach();
  }
}

}  // namespace xd::dist
