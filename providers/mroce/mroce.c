// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Userspace provider for the mroce soft-RDMA device.
 *
 * This first version only brings a device up to the point where a process
 * can open it, query it and own protection domains.  Every verb left unset
 * in mroce_ctx_ops keeps libibverbs' default op, which fails with
 * EOPNOTSUPP, so applications see a clean "not supported" rather than a
 * crash until the data path lands.
 */

#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "mroce.h"

/*
 * How libibverbs finds mroce devices.
 *
 * mroce is an out-of-tree driver, so its kernel device reports
 * RDMA_DRIVER_UNKNOWN and libibverbs never tries driver-id matching for it
 * (match_driver_id() skips UNKNOWN).  The name pattern accepts ib devices
 * whose name starts with "mroce"; Documentation/admin-guide.rst asks users
 * to name mroce devices that way ("rdma link add mroce0 type mroce ...").
 */
static const struct verbs_match_ent mroce_match_table[] = {
	VERBS_NAME_MATCH(MROCE_DRIVER_NAME, NULL),
	{},
};

/*
 * libibverbs calls this after the table lookup, whatever its result.  A
 * name match alone is not enough: "rdma link add mroce0 type rxe ..." is a
 * legal command, and if the rxe provider were missing the name pattern would
 * claim that rxe device and then talk the wrong ABI to it.  In-tree drivers
 * always report their own driver id; ours is the only kind that reports
 * none, so insist on that.
 */
static bool mroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	if (!sysfs_dev->match)
		return false;

	return sysfs_dev->driver_id == RDMA_DRIVER_UNKNOWN;
}

static int mroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	struct verbs_sysfs_dev *sysfs_dev;
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/*
	 * The command returns fw_ver only as a raw u64 and leaves the string
	 * to the provider.  mroce has no firmware; the kernel's own string
	 * (get_dev_fw_str, shown in sysfs and by "rdma dev") is the one
	 * source of truth, so show the same text here.
	 */
	sysfs_dev = verbs_get_device(ibctx->device)->sysfs;
	if (sysfs_dev &&
	    ibv_read_ibdev_sysfs_file(attr->orig_attr.fw_ver,
				      sizeof(attr->orig_attr.fw_ver), sysfs_dev,
				      "fw_ver") > 0)
		return 0;

	/* No sysfs view (e.g. another net namespace): decode the u64. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);

	return 0;
}

static int mroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *mroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	/* The PD is pure kernel state; userspace only keeps the handle. */
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}

	return pd;
}

static int mroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	/* Keep the handle if the kernel refused (e.g. PD still in use). */
	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

static void mroce_free_context(struct ibv_context *ibctx)
{
	struct mroce_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops mroce_ctx_ops = {
	.query_device_ex = mroce_query_device_ex,
	.query_port = mroce_query_port,
	.alloc_pd = mroce_alloc_pd,
	.dealloc_pd = mroce_dealloc_pd,
	.free_context = mroce_free_context,
};

static struct verbs_context *mroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct umroce_alloc_ucontext_resp resp = {};
	struct umroce_alloc_ucontext cmd = {};
	struct mroce_context *ctx;
	int ret;

	/*
	 * The driver id is copied into every ioctl() header and the kernel
	 * rejects a command whose id differs from its ops.driver_id, so this
	 * must be the kernel's value: RDMA_DRIVER_UNKNOWN.
	 */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret) {
		/* ibv_open_device() callers only see NULL and errno. */
		errno = ret;
		goto err;
	}

	/*
	 * The device-level uverbs ABI was already checked when the device was
	 * matched; this version covers the driver-private structures.  A
	 * kernel that sends a shorter response leaves abi_version at zero
	 * (resp was zeroed), which is refused here too.
	 */
	if (resp.abi_version != MROCE_UVERBS_ABI_VERSION) {
		verbs_err(&ctx->ibv_ctx,
			  "mroce kernel driver speaks ABI version %u, this provider speaks %u; build the module and the provider from the same tree\n",
			  resp.abi_version, MROCE_UVERBS_ABI_VERSION);
		errno = EPROTO;
		goto err;
	}

	ctx->udp_port = resp.udp_port;
	ctx->max_inline = resp.max_inline;

	verbs_set_ops(&ctx->ibv_ctx, &mroce_ctx_ops);

	return &ctx->ibv_ctx;

err:
	/* Closes cmd_fd, which also releases the kernel ucontext. */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *
mroce_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct mroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->abi_version = sysfs_dev->abi_ver;

	return &dev->ibv_dev;
}

static void mroce_uninit_device(struct verbs_device *verbs_device)
{
	free(to_mdev(&verbs_device->device));
}

static const struct verbs_device_ops mroce_dev_ops = {
	.name = MROCE_DRIVER_NAME,
	/*
	 * The kernel sets ops.uverbs_abi_ver to MROCE_UVERBS_ABI_VERSION, and
	 * libibverbs refuses (with a warning naming both versions) a device
	 * outside this range before it ever reaches alloc_context.
	 */
	.match_min_abi_version = MROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = MROCE_UVERBS_ABI_VERSION,
	.match_table = mroce_match_table,
	.match_device = mroce_match_device,
	.alloc_device = mroce_device_alloc,
	.uninit_device = mroce_uninit_device,
	.alloc_context = mroce_alloc_context,
};
PROVIDER_DRIVER(mroce, mroce_dev_ops);
