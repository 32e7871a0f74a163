// Per-thread current device and current stream per device (the hot path of every op).
#pragma once

#include "registry/registry.hpp"

namespace xd::detail {

// The calling thread's current stream on `dev` (its default stream unless set).
StreamState& current_stream_state(DeviceRecord& dev);
std::shared_ptr<StreamState> current_stream_ptr(DeviceRecord& dev);
void set_current_stream_ptr(DeviceRecord& dev, std::shared_ptr<StreamState> s);

}  // namespace xd::detail
