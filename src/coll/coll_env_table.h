/* The collectives' environment variables, in core's form (core/config/env_table.h says
 * what the kinds mean; core/config/env.h how a layer's rows join the one table).
 * SHOAL_ENV(id, name, deprecated alias or NULL, kind, default, meaning) */
SHOAL_ENV(COLL_REDUCE, "SHOAL_COLL_REDUCE", NULL, STRING, "auto",
          "Reduction algorithm: gather (each PE reduces everything), rsag (reduce-scatter + "
          "allgather), auto (rsag from SHOAL_COLL_REDUCE_CROSSOVER bytes); on a team across "
          "nodes both send the data as messages")
SHOAL_ENV(COLL_REDUCE_CROSSOVER, "SHOAL_COLL_REDUCE_CROSSOVER", NULL, SIZE, "16K",
          "Array size (bytes, K/M/G suffixes) from which auto picks rsag for reductions")
SHOAL_ENV(COLL_BCAST, "SHOAL_COLL_BCAST", NULL, STRING, "auto",
          "Broadcast algorithm: tree (binomial, puts and signals; on a team across nodes, "
          "messages), get (every PE pulls from the root), auto (tree up to "
          "SHOAL_COLL_BCAST_CROSSOVER bytes, and for any size on a team across nodes where the "
          "network carries messages)")
SHOAL_ENV(COLL_BCAST_CROSSOVER, "SHOAL_COLL_BCAST_CROSSOVER", NULL, SIZE, "16K",
          "Largest broadcast (bytes) that auto sends down the tree")
SHOAL_ENV(COLL_MT_MIN, "SHOAL_COLL_MT_MIN", NULL, SIZE, "16K",
          "Smallest multi-threaded collective (shmemx_*_mt; bytes of dest, K/M/G suffixes) whose "
          "data the threads split; smaller ones are run by thread 0 alone")
