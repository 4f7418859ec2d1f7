/* The OFI transport's variables (ofi_env.c, rows in ofi_env_table.h), read
 * at init: core lists and loads them through the ops table's env_layer,
 * whichever network the job chooses. */
#ifndef SHOAL_OFI_ENV_H
#define SHOAL_OFI_ENV_H

struct ofi_config {
    int progress_auto;        /* SHOAL_OFI_PROGRESS=auto */
    int msgs_signals;         /* SHOAL_OFI_MSGS: on or signals */
    int msgs_coll;            /* SHOAL_OFI_MSGS=on */
    const char *auto_devices; /* SHOAL_OFI_AUTO_DEVICES */
    unsigned amo_disabled;    /* SHOAL_OFI_AMO_DISABLE: 1 << enum shoal_amo_op */
    int assume_mr_local;      /* SHOAL_OFI_ASSUME_MODES has mr_local */
    int assume_ctx;           /* ... context or context2 */
};
extern struct ofi_config ofi_cfg;

#endif
