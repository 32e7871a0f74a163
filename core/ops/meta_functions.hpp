// The meta function of every op (op_meta.hpp says what one does). Each lives beside the public
// ops that call it; schema.cpp points every schema at its own. Ops of one kind share one, which
// tells them apart by MetaArgs::op.
#pragma once

#include "ops/op_meta.hpp"

namespace xd::detail {

MetaResult meta_fill(const MetaArgs& a);               // creation.cpp
MetaResult meta_arange(const MetaArgs& a);             // creation.cpp
MetaResult meta_random(const MetaArgs& a);             // creation.cpp: rand, randn
MetaResult meta_copy(const MetaArgs& a);               // tensor/copy.cpp
MetaResult meta_binary(const MetaArgs& a);             // pointwise.cpp: add, sub, mul, div, eq, lt, gt
MetaResult meta_where(const MetaArgs& a);              // pointwise.cpp
MetaResult meta_unary(const MetaArgs& a);              // pointwise.cpp: neg ... tanh, pow, gelu, floor, round
MetaResult meta_clamp(const MetaArgs& a);              // pointwise.cpp
MetaResult meta_index_select(const MetaArgs& a);       // indexing.cpp
MetaResult meta_gather(const MetaArgs& a);             // indexing.cpp
MetaResult meta_cumsum(const MetaArgs& a);             // scan.cpp
MetaResult meta_topk(const MetaArgs& a);               // scan.cpp
MetaResult meta_attention(const MetaArgs& a);          // attention.cpp: scaled_dot_product_attention
MetaResult meta_conv2d(const MetaArgs& a);             // conv.cpp
MetaResult meta_pool2d(const MetaArgs& a);             // pool.cpp: max_pool2d, avg_pool2d
MetaResult meta_reduce(const MetaArgs& a);             // reduction.cpp: sum, mean, amax, amin, argmax
MetaResult meta_softmax(const MetaArgs& a);            // reduction.cpp: softmax, log_softmax
MetaResult meta_matmul(const MetaArgs& a);             // matmul.cpp: mm, addmm, bmm, baddbmm
MetaResult meta_rms_norm(const MetaArgs& a);           // norm.cpp
MetaResult meta_rms_norm_backward(const MetaArgs& a);  // norm.cpp
MetaResult meta_layer_norm(const MetaArgs& a);         // norm.cpp
MetaResult meta_layer_norm_backward(const MetaArgs& a);  // norm.cpp
MetaResult meta_int_mm(const MetaArgs& a);             // quant.cpp
MetaResult meta_scaled_mm(const MetaArgs& a);          // quant.cpp
MetaResult meta_weight_int4_mm(const MetaArgs& a);     // int4.cpp
MetaResult meta_quantize_int4(const MetaArgs& a);      // int4.cpp
MetaResult meta_csr_addmm(const MetaArgs& a);          // sparse/csr_matmul.cpp
MetaResult meta_csr_to_dense(const MetaArgs& a);       // sparse/csr.cpp

}  // namespace xd::detail
