/* The OFI transport's environment variables, in core's form (core/config/env_table.h says
 * what the kinds mean; core/config/env.h how a layer's rows join the one table).
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning) */
SHOAL_ENV(PROGRESS, "SHOAL_OFI_PROGRESS", NULL, STRING, "auto",
          "OFI (libfabric): auto asks the provider to progress peers' operations on this PE by "
          "itself where it can (tcp;ofi_rxm; not sockets, whose automatic progress spins a "
          "thread), manual asks for manual progress; with manual progress (shm, sockets, "
          "udp;ofi_rxd, cxi, efa) this PE's waits and a progress thread progress peers' "
          "operations")
SHOAL_ENV(MSGS, "SHOAL_OFI_MSGS", NULL, STRING, "on",
          "OFI (libfabric): on sends collectives' signals (with the calls' signatures) and active "
          "messages as tagged messages where every PE's provider offers FI_TAGGED, and "
          "collectives' data too over rxm (tcp;ofi_rxm, verbs;ofi_rxm); signals: the signals "
          "only (data by puts, active messages by RMA); off: none (atomic adds, puts, RMA)")
SHOAL_ENV(AUTO_DEVICES, "SHOAL_OFI_AUTO_DEVICES", NULL, STRING,
          "/sys/class/infiniband:/sys/class/cxi:/dev/hfi1_0:/dev/cxi0",
          "Where SHOAL_TRANSPORTS=auto looks for a fabric device (':'-separated; a directory "
          "counts when it has an entry) before it loads libfabric to ask for a fabric's own "
          "provider (cxi, efa, opx, psm3, psm2, or verbs where UCX finds no device); none "
          "there: UCX, libfabric not loaded. Testing: a place that exists makes it ask "
          "libfabric on any machine")
SHOAL_ENV(ASSUME_MODES, "SHOAL_OFI_ASSUME_MODES", NULL, STRING, "",
          "Testing: behave as if the provider asked for these modes (comma-separated: mr_local, "
          "context, context2): mr_local registers every local buffer handed to libfabric and "
          "checks each descriptor (FI_MR_LOCAL; messages then go as atomics and RMA), context "
          "and context2 give every operation a context of Shoal's (FI_CONTEXT2); shmem-info says "
          "so")
SHOAL_ENV(AMO_DISABLE, "SHOAL_OFI_AMO_DISABLE", NULL, STRING, "",
          "Testing: atomic operations to treat as missing from the provider (comma-separated: "
          "fetch, set, swap, fetch-add, add, fetch-and, and, fetch-or, or, fetch-xor, xor, or "
          "all), on 32- and 64-bit words: Shoal emulates them by compare-and-swap over the "
          "network, as it does those a provider lacks (shmem-info lists them)")
