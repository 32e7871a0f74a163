// Umbrella header: everything an application needs.
#pragma once

#include <xd/backend.hpp>
#include <xd/compile.hpp>
#include <xd/device.hpp>
#include <xd/dtype.hpp>
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/log.hpp>
#include <xd/ops.hpp>
#include <xd/runtime.hpp>
#include <xd/sparse.hpp>
#include <xd/tensor.hpp>
#include <xd/version.hpp>
