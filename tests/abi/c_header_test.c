/* The plugin ABI header must compile as plain C11 (-Wall -Wextra -Wpedantic -Werror) and keep
 * struct_size first in every struct. Exit status 0 = pass (run by CTest). */
#include <xd/plugin_abi.h>

#include <stddef.h>
#include <stdio.h>

#define FIRST(type)                                              \
  do {                                                           \
    if (offsetof(type, struct_size) != 0) {                      \
      printf("%s: struct_size is not the first field\n", #type); \
      return 1;                                                  \
    }                                                            \
  } while (0)

int main(void) {
  xd_plugin_info info = {0};
  FIRST(xd_plugin_info);
  FIRST(xd_plugin_api);
  FIRST(xd_host_api);
  FIRST(xd_kernel_desc);
  FIRST(xd_kernel_call);
  FIRST(xd_view);
  FIRST(xd_device_properties);
  FIRST(xd_attrs_scalar);
  FIRST(xd_attrs_arange);
  FIRST(xd_attrs_random);
  FIRST(xd_attrs_gelu);
  FIRST(xd_attrs_reduce);
  FIRST(xd_attrs_dim);
  FIRST(xd_attrs_blas);
  FIRST(xd_attrs_rms_norm);
  FIRST(xd_attrs_rms_norm_backward);
  FIRST(xd_attrs_int4);
  FIRST(xd_attrs_clamp);
  FIRST(xd_attrs_round);
  FIRST(xd_attrs_layer_norm_backward);
  FIRST(xd_option_desc);
  info.struct_size = sizeof info;
  if (!XD_STRUCT_HAS(&info, xd_plugin_info, device_kinds)) return 1;
  info.struct_size = offsetof(xd_plugin_info, version);
  if (XD_STRUCT_HAS(&info, xd_plugin_info, version)) return 1;
  /* ABI 1.2 appended the family, flags and options to the query, and check() to the kernel. */
  info.struct_size = offsetof(xd_plugin_info, family);
  if (XD_STRUCT_HAS(&info, xd_plugin_info, family) || !XD_STRUCT_HAS(&info, xd_plugin_info, device_kinds)) return 1;
  if (offsetof(xd_plugin_info, option_count) < offsetof(xd_plugin_info, options)) return 1;
  if (offsetof(xd_kernel_desc, check) < offsetof(xd_kernel_desc, priority)) return 1;
  if (XD_ABI_MINOR < 2) return 1;
  if (XD_OP_MAXIMUM != 44 || XD_OP_MINIMUM != 45 || XD_OP_COUNT_V1_2 != 46) return 1;
  /* ABI 1.4 appended clamp, floor and round (1.3 added no op) and their attribute structs. */
  if (XD_ABI_MINOR < 4) return 1;
  if (XD_OP_CLAMP != 46 || XD_OP_FLOOR != 47 || XD_OP_ROUND != 48) return 1;
  /* ... and index_select (49), which takes xd_attrs_dim. */
  if (XD_OP_INDEX_SELECT != 49 || XD_OP_COUNT_V1_4 != 50) return 1;
  /* ABI 1.5 appended layer_norm (50, xd_attrs_rms_norm), layer_norm_backward (51), gather (52,
   * xd_attrs_dim) and scaled_dot_product_attention (53, xd_attrs_attention). */
  if (XD_ABI_MINOR < 5) return 1;
  if (XD_OP_LAYER_NORM != 50 || XD_OP_LAYER_NORM_BACKWARD != 51 || XD_OP_GATHER != 52) return 1;
  if (XD_OP_SCALED_DOT_PRODUCT_ATTENTION != 53) return 1;
  if (XD_OP_COUNT_V1_5 != 54) return 1;
  /* ABI 1.6 appended conv2d (54, xd_attrs_conv2d), max_pool2d (55) and avg_pool2d (56), both taking
   * xd_attrs_pool2d, cumsum (57, xd_attrs_dim) and topk (58, xd_attrs_topk). */
  if (XD_ABI_MINOR < 6) return 1;
  if (XD_OP_CONV2D != 54 || XD_OP_MAX_POOL2D != 55 || XD_OP_AVG_POOL2D != 56) return 1;
  if (XD_OP_CUMSUM != 57 || XD_OP_TOPK != 58) return 1;
  if (XD_OP_COUNT_V1_6 != 59) return 1;
  /* ABI 1.8 appended ne (59), ge (60) and le (61); 1.7 added no op. */
  if (XD_ABI_MINOR < 8) return 1;
  if (XD_OP_NE != 59 || XD_OP_GE != 60 || XD_OP_LE != 61) return 1;
  if (XD_OP_COUNT_V1_8 != 62 || XD_OP_COUNT_LATEST != XD_OP_COUNT_V1_8) return 1;
  if (offsetof(xd_attrs_conv2d, groups) < offsetof(xd_attrs_conv2d, dilation)) return 1;
  if (sizeof(((xd_attrs_pool2d*)0)->kernel) != 2 * sizeof(int64_t)) return 1;
  if (offsetof(xd_attrs_pool2d, divisor_override) < offsetof(xd_attrs_pool2d, count_include_pad)) return 1;
  if (sizeof(((xd_attrs_topk*)0)->k) != 8 || offsetof(xd_attrs_topk, sorted) < offsetof(xd_attrs_topk, largest))
    return 1;
  if (sizeof(((xd_attrs_layer_norm_backward*)0)->output_mask) != 3 * sizeof(int32_t)) return 1;
  if (offsetof(xd_attrs_attention, is_causal) < offsetof(xd_attrs_attention, scale)) return 1;
  if (offsetof(xd_attrs_clamp, int_min) < offsetof(xd_attrs_clamp, real_max)) return 1;
  if (sizeof(((xd_attrs_round*)0)->decimals) != 8) return 1;
  if (XD_DTYPE_COUNT_V1 != 11 || XD_OP_COUNT_V1 != 38 || XD_OP_COUNT_V1_1 != 44) return 1;
  if (XD_OP_INT_MM != 38 || XD_OP_SCALED_MM != 39 || XD_OP_WEIGHT_INT4_MM != 40 || XD_OP_QUANTIZE_INT4 != 41) return 1;
  if (XD_OP_CSR_ADDMM != 42 || XD_OP_CSR_TO_DENSE != 43) return 1;
  printf("plugin_abi.h compiles as C11; struct_size leads every struct\n");
  return 0;
}
