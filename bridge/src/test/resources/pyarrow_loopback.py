"""pyarrow against a bridge on loopback (PyarrowLoopbackTest): python pyarrow_loopback.py URI TOKEN GETQ PUTQ ARRAY COUNT.

Each call first without the token and with a wrong one (each must be refused, and a refused DoPut must deliver
nothing); then with the token: DoGet queue/GETQ reads COUNT messages (message k: k * 1000 + arange), DoPut
queue/PUTQ sends COUNT messages of shape (4, 8) the same way (the end of the put ends that queue), DoPut
array/ARRAY one batch of 3 rows of (2, 3) float64. Prints "refused CALL LABEL", "got K", "end COUNT", "put COUNT",
"array"; exits 1 on anything else.
"""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl

uri, token, getq, putq, array, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
client = fl.connect(uri)
auth = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + token.encode())])


def tensors(values):
    return pa.record_batch([pa.FixedShapeTensorArray.from_numpy_ndarray(values)], names=["data"])


def put(path, batches, options):
    first = batches[0]
    writer, _ = client.do_put(fl.FlightDescriptor.for_path(path), first.schema, options)
    for b in batches:
        writer.write_batch(b)
    writer.close()


calls = {
    "do_get": lambda o: client.do_get(fl.Ticket(("queue/" + getq).encode()), o).read_all(),
    "do_put_queue": lambda o: put("queue/" + putq, [tensors(np.zeros((1, 4, 8)))], o),
    "do_put_array": lambda o: put("array/" + array, [tensors(np.zeros((3, 2, 3)))], o),
}
for call, run in calls.items():
    for label, headers in (("none", []), ("wrong", [(b"authorization", b"Bearer not-the-token")])):
        try:
            run(fl.FlightCallOptions(headers=headers))
            print("accepted %s without the token (%s)" % (call, label), flush=True)
            sys.exit(1)
        except fl.FlightUnauthenticatedError as e:
            print("refused %s %s: %s" % (call, label, str(e).splitlines()[0]), flush=True)

expect = 0
for chunk in client.do_get(fl.Ticket(("queue/" + getq).encode()), auth):
    for t in chunk.data.column(0).to_numpy_ndarray():
        want = expect * 1000.0 + np.arange(t.size, dtype=np.float64).reshape(t.shape)
        if not np.array_equal(t, want):
            print("bad message %d: %s" % (expect, t), flush=True)
            sys.exit(1)
        print("got %d" % expect, flush=True)
        expect += 1
print("end %d" % expect, flush=True)

put("queue/" + putq, [tensors((k * 1000.0 + np.arange(32.0)).reshape(1, 4, 8)) for k in range(count)], auth)
print("put %d" % count, flush=True)
put("array/" + array, [tensors(np.arange(18.0).reshape(3, 2, 3))], auth)
print("array", flush=True)
