/* The OFI transport's environment variables, in core's form (core/config/env_table.h says
 * what the kinds mean; core/config/env.h how a layer's rows join the one table).
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning) */
SHOAL_ENV(PROGRESS, "SHOAL_OFI_PROGRESS", NULL, STRING, "auto",
          "OFI (libfabric): auto asks the provider to progress peers' operations on this PE by "
          "itself where it can (tcp;ofi_rxm, sockets), manual leaves it to this PE's waits and "
          "calls; providers that only progress manually (shm, udp;ofi_rxd) are used either way")
SHOAL_ENV(MSGS, "SHOAL_OFI_MSGS", NULL, STRING, "on",
          "OFI (libfabric): on sends collectives' signals (with the calls' signatures) and active "
          "messages as tagged messages where every PE's provider offers FI_TAGGED, and "
          "collectives' data too over rxm (tcp;ofi_rxm, verbs;ofi_rxm); signals: the signals "
          "only (data by puts, active messages by RMA); off: none (atomic adds, puts, RMA)")
