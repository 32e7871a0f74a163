// One registration function per kernel file; xd_plugin_init calls them all (plugin.cpp).
#pragma once

#include <xd/plugin.hpp>

namespace xd::cpu {

void register_creation(plugin::registrar& r);  // fill, arange
void register_random(plugin::registrar& r);    // rand, randn
void register_copy(plugin::registrar& r);
void register_binary(plugin::registrar& r);    // add, sub, mul, div
void register_compare(plugin::registrar& r);   // eq, lt, gt, where
void register_unary(plugin::registrar& r);     // neg ... tanh, pow
void register_reduction(plugin::registrar& r); // sum, mean, amax, amin, argmax
void register_softmax(plugin::registrar& r);   // softmax, log_softmax
void register_matmul_loop(plugin::registrar& r);
void register_matmul_dnnl(plugin::registrar& r);  // mm family and int_mm; no-op without oneDNN
void register_int_mm(plugin::registrar& r);       // the int_mm reference loop
void register_scaled_mm(plugin::registrar& r);
void register_rms_norm(plugin::registrar& r);  // rms_norm, rms_norm_backward
void register_int4(plugin::registrar& r);      // weight_int4_mm, quantize_int4
void register_sparse(plugin::registrar& r);    // csr_addmm, csr_to_dense

}  // namespace xd::cpu
