/* The OFI transport's part in SHOAL_TRANSPORTS=auto (net.h's fabric_fit):
 * the rule over the providers libfabric offers (ofi_auto_rule.c, pure, so
 * that tests/unit can feed it lists no machine here has), and the look at
 * this machine (ofi_auto.c); and FI_PROVIDER's filter, which Shoal applies
 * itself where libfabric's first call ran without it (ofi_provider.c). */
#ifndef SHOAL_OFI_AUTO_H
#define SHOAL_OFI_AUTO_H
#include <stddef.h>

/* How well libfabric fits, given the providers it offers with what Shoal
 * needs (`provs`: fi_getinfo's prov_name of each, in its order, layered
 * ones as "verbs;ofi_rxm"): SHOAL_FIT_NATIVE for a fabric's own provider
 * (cxi, efa, opx, psm3, psm2), SHOAL_FIT_DEVICE for verbs (UCX drives the
 * same devices: it wins the tie where it finds them), else
 * SHOAL_FIT_GENERIC; `why` names what decided. */
int ofi_auto_rule(const char *const *provs, size_t n, char *why, size_t len);

/* Does FI_PROVIDER's value `filter` let libfabric offer provider `prov`
 * (a prov_name, "tcp;ofi_rxm")?  As libfabric 1.17 applies it (measured):
 * a ','-separated list of names, each of which may be layered ("tcp",
 * "tcp;ofi_rxm", "sockets,shm"), case aside, admits a provider whose core
 * (the first of its layered name) is among them; a leading '^' admits
 * those whose core is not; an empty value admits none. */
int ofi_fi_provider_allows(const char *filter, const char *prov);

#endif
