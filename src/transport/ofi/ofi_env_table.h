/* The OFI transport's environment variables, in core's form (core/config/env_table.h says
 * what the kinds mean; core/config/env.h how a layer's rows join the one table).
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning) */
SHOAL_ENV(PROGRESS, "SHOAL_OFI_PROGRESS", NULL, STRING, "auto",
          "OFI (libfabric): auto asks the provider to progress peers' operations on this PE by "
          "itself where it can (tcp;ofi_rxm; not sockets, whose automatic progress spins a "
          "thread), manual asks for manual progress; with manual progress (shm, sockets, cxi, "
          "efa) this PE's waits and a progress thread progress peers' operations")
