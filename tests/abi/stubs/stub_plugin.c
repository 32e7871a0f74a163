/* A minimal plugin in plain C11, built several times with different STUB_* macros into plugins
 * that are broken on purpose (tests/abi/loader_test.cpp checks each load-report status):
 *   STUB_NAME            backend name (default "stub")
 *   STUB_ABI_MAJOR       ABI major it claims (default XD_ABI_MAJOR)
 *   STUB_NO_INIT         do not export xd_plugin_init
 *   STUB_INIT_FAILS      init returns XD_ERR_INTERNAL with a message
 *   STUB_UNAVAILABLE     init returns XD_ERR_UNAVAILABLE with a message
 *   STUB_DEVICES         number of devices (default 1)
 *   STUB_NEEDS_DEP       calls a function from libxd_stub_dep.so (missing at run time)
 *   STUB_OLD_API         fills only the fields of an older, shorter xd_plugin_api
 *   STUB_DEVICE_KIND     the kind its devices report (default XD_DEVICE_KIND_ACCELERATOR)
 *   STUB_DEVICE_NAME     their name (default "stub device")
 *   STUB_DEVICE_MEMORY   its devices do not use host pointers, so the core moves data through
 *                        copy_h2d/copy_d2h (which are still memcpy: handles are malloc'd)
 *   STUB_FAMILY          the family it declares (ABI 1.2), with STUB_FAMILY_PREFERENCE; its
 *                        family takes GPUs and accelerators
 *   STUB_DECLINES        also registers three ADD f32 kernels that decline every call: one whose
 *                        check() gives a reason, one that fills the whole reason buffer without
 *                        a terminator (the host must cut it), and one with only an ABI 1.0
 *                        supports()
 *   STUB_OPTIONS         declares options: a valid set (=1) or one malformed declaration (=2)
 *   STUB_PINNED          provides host_alloc/host_free (malloc, at most 1 GiB per call), and its
 *                        events stay pending while the exported xd_stub_set_pending(1) holds, so
 *                        a test decides when a copy "completes" (tests/unit/pinned_memory_test.cpp)
 *   STUB_ADD_MUL         registers ADD and MUL for f32 instead of FILL, taking only contiguous
 *                        operands of the output's shape (any other call is declined with a
 *                        reason), and no COPY: an out-of-tree backend whose XD_FALLBACK=cpu
 *                        fallback must move broadcast or strided operands without dispatching
 *                        COPY on it (tests/abi/fallback_gather_test.cpp)
 * A working stub has one host-memory device and registers one kernel (FILL for f32), so ops
 * without a kernel exercise NotImplementedError and XD_FALLBACK=cpu. Named "opencl" or
 * "levelzero" with a GPU or CPU kind and the family "xpu", it stands in for an XPU backend
 * (tests/abi/xpu_selection_test.cpp). */
#include <xd/plugin_abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef STUB_NAME
#define STUB_NAME "stub"
#endif
#ifndef STUB_ABI_MAJOR
#define STUB_ABI_MAJOR XD_ABI_MAJOR
#endif
#ifndef STUB_DEVICES
#define STUB_DEVICES 1
#endif
#ifndef STUB_DEVICE_KIND
#define STUB_DEVICE_KIND XD_DEVICE_KIND_ACCELERATOR
#endif
#ifndef STUB_DEVICE_NAME
#define STUB_DEVICE_NAME "stub device"
#endif

#define EXPORT __attribute__((visibility("default")))
#define UNUSED __attribute__((unused)) /* with STUB_NO_INIT nothing refers to the table */

#ifdef STUB_NEEDS_DEP
int xd_stub_dep_value(void);
#endif

static const xd_host_api *g_host;

UNUSED static int32_t device_count(void *ctx) {
  (void)ctx;
  return STUB_DEVICES;
}

UNUSED static xd_status device_properties(void *ctx, int32_t device, xd_device_properties *out) {
  (void)ctx;
  (void)device;
  strcpy(out->name, STUB_DEVICE_NAME);
  strcpy(out->vendor, "xdispatch tests");
  strcpy(out->driver_version, "0");
  out->kind = STUB_DEVICE_KIND;
#ifdef STUB_DEVICE_MEMORY
  out->flags = XD_DEVICE_FLAG_F64;
#else
  out->flags = XD_DEVICE_FLAG_HOST_POINTERS | XD_DEVICE_FLAG_F64;
#endif
  out->total_memory = 1u << 30;
  out->compute_units = 1;
  return XD_OK;
}

UNUSED static xd_status mem_alloc(void *ctx, int32_t device, uint64_t n, void **h) {
  (void)ctx;
  (void)device;
  *h = malloc(n ? n : 1);
  return *h ? XD_OK : g_host->set_error(g_host->ctx, XD_ERR_OUT_OF_MEMORY, "stub: malloc failed");
}
UNUSED static xd_status mem_free(void *ctx, int32_t device, void *h) {
  (void)ctx;
  (void)device;
  free(h);
  return XD_OK;
}
UNUSED static xd_status copy_h2d(void *ctx, int32_t device, xd_stream s, void *dst, uint64_t off, const void *src, uint64_t n,
                          int32_t blocking) {
  (void)ctx, (void)device, (void)s, (void)blocking;
  memcpy((char *)dst + off, src, n);
  return XD_OK;
}
UNUSED static xd_status copy_d2h(void *ctx, int32_t device, xd_stream s, void *dst, const void *src, uint64_t off, uint64_t n,
                          int32_t blocking) {
  (void)ctx, (void)device, (void)s, (void)blocking;
  memcpy(dst, (const char *)src + off, n);
  return XD_OK;
}
UNUSED static xd_status copy_d2d(void *ctx, int32_t device, xd_stream s, void *dst, uint64_t doff, const void *src,
                          uint64_t soff, uint64_t n) {
  (void)ctx, (void)device, (void)s;
  memmove((char *)dst + doff, (const char *)src + soff, n);
  return XD_OK;
}
UNUSED static xd_status stream_create(void *ctx, int32_t device, xd_stream *out) {
  (void)ctx, (void)device;
  *out = malloc(1);
  return XD_OK;
}
UNUSED static xd_status stream_destroy(void *ctx, int32_t device, xd_stream s) {
  (void)ctx, (void)device;
  free(s);
  return XD_OK;
}
UNUSED static xd_status stream_ok(void *ctx, int32_t device, xd_stream s) {
  (void)ctx, (void)device, (void)s;
  return XD_OK;
}
UNUSED static xd_status event_create(void *ctx, int32_t device, xd_event *out) {
  (void)ctx, (void)device;
  *out = calloc(1, sizeof(double));
  return XD_OK;
}
UNUSED static xd_status event_destroy(void *ctx, int32_t device, xd_event e) {
  (void)ctx, (void)device;
  free(e);
  return XD_OK;
}
UNUSED static xd_status event_record(void *ctx, int32_t device, xd_event e, xd_stream s) {
  struct timespec ts;
  (void)ctx, (void)device, (void)s;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *(double *)e = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
  return XD_OK;
}
UNUSED static xd_status stream_wait_event(void *ctx, int32_t device, xd_stream s, xd_event e) {
  (void)ctx, (void)device, (void)s, (void)e;
  return XD_OK;
}
UNUSED static xd_status event_ok(void *ctx, int32_t device, xd_event e) {
  (void)ctx, (void)device, (void)e;
  return XD_OK;
}
UNUSED static xd_status event_elapsed(void *ctx, int32_t device, xd_event a, xd_event b, double *ms) {
  (void)ctx, (void)device;
  *ms = *(double *)b - *(double *)a;
  return XD_OK;
}

#ifdef STUB_PINNED
static _Atomic int g_pending;
EXPORT void xd_stub_set_pending(int pending) { g_pending = pending; }

static xd_status host_alloc(void *ctx, int32_t device, uint64_t n, void **p) {
  (void)ctx, (void)device;
  if (n > (1ull << 30))
    return g_host->set_error(g_host->ctx, XD_ERR_OUT_OF_MEMORY, "stub: at most 1 GiB of pinned memory per allocation");
  *p = malloc(n ? n : 1);
  return *p ? XD_OK : g_host->set_error(g_host->ctx, XD_ERR_OUT_OF_MEMORY, "stub: malloc failed");
}
static xd_status host_free(void *ctx, int32_t device, void *p) {
  (void)ctx, (void)device;
  free(p);
  return XD_OK;
}
static xd_status event_query_pending(void *ctx, int32_t device, xd_event e) {
  (void)ctx, (void)device, (void)e;
  return g_pending ? XD_NOT_READY : XD_OK;
}
#endif

/* FILL for contiguous f32 outputs. */
UNUSED static xd_status fill_f32(const xd_kernel_call *call) {
  const xd_view *o = &call->outputs[0];
  const xd_attrs_scalar *a = (const xd_attrs_scalar *)call->attrs;
  int64_t n = 1;
  int32_t d;
  float *p = (float *)((char *)o->handle + o->offset);
  for (d = 0; d < o->ndim; ++d) n *= o->sizes[d];
  for (int64_t i = 0; i < n; ++i) p[i] = (float)a->real;
  return XD_OK;
}

#ifdef STUB_ADD_MUL
/* Whether view `v` is row-major contiguous with the sizes of `out`. */
static int dense_like(const xd_view *v, const xd_view *out) {
  int64_t expected = 1;
  int32_t d;
  if (v->ndim != out->ndim) return 0;
  for (d = v->ndim - 1; d >= 0; --d) {
    if (v->sizes[d] != out->sizes[d]) return 0;
    if (v->sizes[d] != 1 && v->strides[d] != expected) return 0;
    expected *= v->sizes[d];
  }
  return 1;
}
static int32_t dense_only(const xd_kernel_call *call, char *reason, size_t reason_size) {
  int32_t i;
  for (i = 0; i < call->num_inputs; ++i)
    if (!dense_like(&call->inputs[i], &call->outputs[0])) {
      snprintf(reason, reason_size, "input %d is not contiguous in the output's shape", (int)i);
      return 0;
    }
  return 1;
}
static xd_status add_or_mul_f32(const xd_kernel_call *call) {
  const xd_view *a = &call->inputs[0], *b = &call->inputs[1], *o = &call->outputs[0];
  const float *pa = (const float *)((const char *)a->handle + a->offset);
  const float *pb = (const float *)((const char *)b->handle + b->offset);
  float *po = (float *)((char *)o->handle + o->offset);
  const float alpha = call->op == XD_OP_ADD ? (float)((const xd_attrs_scalar *)call->attrs)->real : 0.0f;
  int64_t n = 1, i;
  int32_t d;
  for (d = 0; d < o->ndim; ++d) n *= o->sizes[d];
  for (i = 0; i < n; ++i) po[i] = call->op == XD_OP_ADD ? pa[i] + alpha * pb[i] : pa[i] * pb[i];
  return XD_OK;
}
static xd_status register_add_mul(const xd_host_api *host) {
  xd_kernel_desc k;
  xd_status s;
  memset(&k, 0, sizeof k);
  k.struct_size = sizeof k;
  k.dtype = XD_DTYPE_F32;
  k.fn = add_or_mul_f32;
  k.check = dense_only;
  k.op = XD_OP_ADD;
  k.name = STUB_NAME ".add";
  if ((s = host->register_kernel(host->ctx, &k)) != XD_OK) return s;
  k.op = XD_OP_MUL;
  k.name = STUB_NAME ".mul";
  return host->register_kernel(host->ctx, &k);
}
#endif

#ifdef STUB_DECLINES
UNUSED static xd_status never_runs(const xd_kernel_call *call) {
  (void)call;
  return XD_ERR_INTERNAL;
}
static int32_t declines_with_reason(const xd_kernel_call *call, char *reason, size_t reason_size) {
  (void)call;
  snprintf(reason, reason_size, "this stub takes no call (f32 add of %d inputs)", (int)call->num_inputs);
  return 0;
}
static int32_t declines_unterminated(const xd_kernel_call *call, char *reason, size_t reason_size) {
  (void)call;
  memset(reason, 'x', reason_size); /* no terminator, on purpose */
  return 0;
}
static int declines_old_style(const xd_kernel_call *call) {
  (void)call;
  return 0;
}
static xd_status register_declining(const xd_host_api *host) {
  xd_kernel_desc k;
  xd_status s;
  memset(&k, 0, sizeof k);
  k.struct_size = sizeof k;
  k.op = XD_OP_ADD;
  k.dtype = XD_DTYPE_F32;
  k.fn = never_runs;
  k.name = STUB_NAME ".add.reason";
  k.check = declines_with_reason;
  if ((s = host->register_kernel(host->ctx, &k)) != XD_OK) return s;
  k.name = STUB_NAME ".add.unterminated";
  k.check = declines_unterminated;
  if ((s = host->register_kernel(host->ctx, &k)) != XD_OK) return s;
  /* An ABI 1.1 descriptor: no `check` field at all. */
  k.struct_size = offsetof(xd_kernel_desc, check);
  k.name = STUB_NAME ".add.old";
  k.check = NULL;
  k.supports = declines_old_style;
  return host->register_kernel(host->ctx, &k);
}
#endif

#ifdef STUB_OPTIONS
static const xd_option_desc g_options[] = {
#if STUB_OPTIONS == 1
    {sizeof(xd_option_desc), "XD_STUB_LEVEL", XD_OPTION_INTEGER, 1, {1}, {64}, NULL, "2", "How hard the stub tries."},
    {sizeof(xd_option_desc), "XD_STUB_FAST", XD_OPTION_FLAG, 0, {0}, {0}, NULL, "1", "Whether the stub hurries."},
    {sizeof(xd_option_desc), "XD_STUB_MODE", XD_OPTION_CHOICE, 0, {0}, {0}, "quiet|loud", "quiet", "How it speaks."},
    {sizeof(xd_option_desc), "XD_STUB_SHAPE", XD_OPTION_INTEGERS, 2, {1, 1}, {8, 16}, "rows,cols", "2,4", "A tile."},
    {sizeof(xd_option_desc), "XD_STUB_FLAGS", XD_OPTION_TEXT, 0, {0}, {0}, NULL, "", "Extra flags."},
#else
    /* bounds upside down */
    {sizeof(xd_option_desc), "XD_STUB_BROKEN", XD_OPTION_INTEGER, 1, {9}, {1}, NULL, "2", "Declared wrongly."},
#endif
};
#endif

EXPORT xd_status xd_plugin_query(xd_plugin_info *info) {
  if (info->struct_size < sizeof(xd_plugin_info)) return XD_ERR_INVALID_ARGUMENT;
  info->name = STUB_NAME;
  info->abi_major = STUB_ABI_MAJOR;
  info->abi_minor = 0;
  info->version = "0.0.1";
  info->description = "test stub";
  info->device_kinds = STUB_DEVICE_KIND;
#ifdef STUB_FAMILY
  info->family = STUB_FAMILY;
  info->family_preference = STUB_FAMILY_PREFERENCE;
  info->family_kinds = XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_ACCELERATOR;
#endif
#ifdef STUB_OPTIONS
  info->options = g_options;
  info->option_count = (int32_t)(sizeof g_options / sizeof g_options[0]);
#endif
  return XD_OK;
}

#ifndef STUB_NO_INIT
EXPORT xd_status xd_plugin_init(const xd_host_api *host, xd_plugin_api *api) {
  xd_plugin_api a;
  xd_kernel_desc k;
  size_t n;
  g_host = host;
#ifdef STUB_NEEDS_DEP
  if (xd_stub_dep_value() != 42) return XD_ERR_INTERNAL;
#endif
#ifdef STUB_INIT_FAILS
  return host->set_error(host->ctx, XD_ERR_INTERNAL, "stub: init failed on purpose");
#endif
#ifdef STUB_UNAVAILABLE
  return host->set_error(host->ctx, XD_ERR_UNAVAILABLE, "no stub driver is installed");
#endif
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.device_count = device_count;
  a.device_properties = device_properties;
  a.mem_alloc = mem_alloc;
  a.mem_free = mem_free;
  a.copy_h2d = copy_h2d;
  a.copy_d2h = copy_d2h;
  a.copy_d2d = copy_d2d;
  a.stream_create = stream_create;
  a.stream_destroy = stream_destroy;
  a.stream_synchronize = stream_ok;
  a.stream_query = stream_ok;
  a.event_create = event_create;
  a.event_destroy = event_destroy;
  a.event_record = event_record;
  a.stream_wait_event = stream_wait_event;
  a.event_query = event_ok;
  a.event_synchronize = event_ok;
  a.event_elapsed_ms = event_elapsed;
#ifdef STUB_PINNED
  a.host_alloc = host_alloc;
  a.host_free = host_free;
  a.event_query = event_query_pending;
#endif
#ifdef STUB_OLD_API
  /* A plugin built against an ABI minor version before codegen_languages existed. */
  a.struct_size = offsetof(xd_plugin_api, codegen_languages);
#endif
  n = api->struct_size < a.struct_size ? api->struct_size : a.struct_size;
  memcpy(api, &a, n);
  api->struct_size = n;

  memset(&k, 0, sizeof k);
  k.struct_size = sizeof k;
  k.op = XD_OP_FILL;
  k.dtype = XD_DTYPE_F32;
  k.name = STUB_NAME ".fill";
  k.fn = fill_f32;
#if defined(STUB_ADD_MUL)
  return register_add_mul(host);
#elif defined(STUB_DECLINES)
  if (host->register_kernel(host->ctx, &k) != XD_OK) return XD_ERR_INTERNAL;
  return register_declining(host);
#else
  return host->register_kernel(host->ctx, &k);
#endif
}
#endif
