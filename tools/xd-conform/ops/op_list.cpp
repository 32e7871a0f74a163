// The one list of the op families xd-conform knows. Every op the generator, runner, input
// factory or golden code meets is looked up here by name; an op no family lists gets the
// no_case_description message instead of cases. A new family is a file in this folder that
// defines its accessor, declared and listed below (and added to tools/CMakeLists.txt); a new op
// of an existing family is an entry in that family's file alone.
#include "../op_case.hpp"

#include <map>
#include <stdexcept>

namespace xd::conform {

const OpFamily& creation_family();  // fill, arange, rand, randn
const OpFamily& copy_family();      // copy (casts)
const OpFamily& unary_family();     // neg, abs, exp, log, ..., pow, gelu
const OpFamily& binary_family();    // add, sub, mul, div, where, eq, lt, gt
const OpFamily& reduce_family();    // sum, mean, amax, amin, argmax
const OpFamily& softmax_family();   // softmax, log_softmax
const OpFamily& matmul_family();    // mm, addmm, bmm, baddbmm
const OpFamily& rms_norm_family();  // rms_norm, layer_norm and their backward ops
const OpFamily& int4_family();      // weight_int4_mm, quantize_int4
const OpFamily& quant_mm_family();  // int_mm, scaled_mm
const OpFamily& sparse_family();    // csr_addmm, csr_to_dense
const OpFamily& index_family();     // index_select, gather
const OpFamily& attention_family();  // scaled_dot_product_attention
const OpFamily& conv_family();       // conv2d
const OpFamily& pool_family();       // max_pool2d, avg_pool2d
const OpFamily& scan_family();       // cumsum, topk

namespace {

std::vector<const OpFamily*> op_families() {
  return {&creation_family(), &copy_family(),     &unary_family(),  &binary_family(),
          &reduce_family(),   &softmax_family(),  &matmul_family(), &rms_norm_family(),
          &int4_family(),     &quant_mm_family(), &sparse_family(), &index_family(), &attention_family(), &conv_family(),
          &pool_family(), &scan_family()};
}

// Op name -> family. Two families claiming one op is a mistake in this folder, found at the
// first look-up rather than by whichever family happened to win.
std::map<std::string, const OpFamily*, std::less<>> index_families() {
  std::map<std::string, const OpFamily*, std::less<>> by_op;
  for (const OpFamily* family : op_families())
    for (const std::string& op : family->ops())
      if (!by_op.emplace(op, family).second)
        throw std::logic_error("xd-conform: two op families in tools/xd-conform/ops/ describe op '" + op + "'");
  return by_op;
}

}  // namespace

const OpFamily* find_op_family(std::string_view op) {
  static const std::map<std::string, const OpFamily*, std::less<>> by_op = index_families();
  const auto it = by_op.find(op);
  return it == by_op.end() ? nullptr : it->second;
}

std::string no_case_description(std::string_view op) {
  return "xd-conform has no case description for op '" + std::string(op) + "'; add one in tools/xd-conform/ops/";
}

}  // namespace xd::conform
