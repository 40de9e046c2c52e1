"""pyarrow.flight's own throughput, the baseline of bin/bench flight (FlightBenchmark.java runs it).

  flight_bench.py serve HOST PORT BYTES COUNT     a server: do_get streams COUNT one-row batches of BYTES
                                                  (a fixed_shape_tensor of float64), do_put reads and drops
                                                  what it is sent; prints "serving"
  flight_bench.py get URI BYTES COUNT ROUNDS       ROUNDS do_gets on one connection: prints "round R BYTES SECONDS" for each
  flight_bench.py put URI BYTES COUNT ROUNDS       ROUNDS do_puts of COUNT such batches on one connection: "round R BYTES SECONDS"
"""
import itertools
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl


def batch(nbytes):
    data = np.ones((1, nbytes // 8), dtype=np.float64)
    return pa.record_batch([pa.FixedShapeTensorArray.from_numpy_ndarray(data)], names=["data"])


class Server(fl.FlightServerBase):
    def __init__(self, location, nbytes, count):
        super().__init__(location)
        self.batch = batch(nbytes)
        self.count = count

    def do_get(self, context, ticket):
        reader = pa.RecordBatchReader.from_batches(self.batch.schema, itertools.repeat(self.batch, self.count))
        return fl.RecordBatchStream(reader)

    def do_put(self, context, descriptor, reader, writer):
        for _ in reader:
            pass


def main():
    mode = sys.argv[1]
    if mode == "serve":
        host, port, nbytes, count = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        server = Server("grpc+tcp://%s:%d" % (host, port), nbytes, count)
        print("serving", flush=True)
        server.serve()
        return
    uri, nbytes, count, rounds = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    client = fl.connect(uri)
    b = batch(nbytes)
    for r in range(rounds):
        t0 = time.perf_counter()
        if mode == "get":
            total = 0
            for chunk in client.do_get(fl.Ticket(b"bench")):
                # the consumer's view of each message, as a JVM consumer gets a slot
                total += chunk.data.column(0).to_numpy_ndarray().nbytes
        else:
            writer, _ = client.do_put(fl.FlightDescriptor.for_path("bench"), b.schema)
            for _ in range(count):
                writer.write_batch(b)
            writer.close()
            total = nbytes * count
        print("round %d %d %.6f" % (r, total, time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    main()
