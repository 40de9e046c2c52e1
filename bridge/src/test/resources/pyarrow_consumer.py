"""A pyarrow client of the bridge (host B of the two-host test): python pyarrow_consumer.py URI QUEUE TOKEN.

First calls without the token and with a wrong one (each must be refused), then reads DoGet queue/QUEUE
with the token: each batch is one message as arrow.fixed_shape_tensor, turned into numpy with
to_numpy_ndarray(). Prints "refused ..." twice, "got K" per message, then "end COUNT".
"""
import sys

import numpy as np
import pyarrow.flight as fl

uri, name, token = sys.argv[1], sys.argv[2], sys.argv[3]
client = fl.connect(uri)
for label, headers in (("none", []), ("wrong", [(b"authorization", b"Bearer not-the-token")])):
    try:
        client.do_get(fl.Ticket(("queue/" + name).encode()), fl.FlightCallOptions(headers=headers)).read_all()
        print("accepted without the token (" + label + ")")
    except fl.FlightUnauthenticatedError as e:
        print("refused " + label + ": " + str(e).splitlines()[0], flush=True)
options = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + token.encode())])
reader = client.do_get(fl.Ticket(("queue/" + name).encode()), options)
expect = 0
for chunk in reader:
    tensors = chunk.data.column(0).to_numpy_ndarray()
    for t in tensors:
        k = int(t.flat[0] // 1000)
        want = k * 1000.0 + np.arange(t.size, dtype=np.float64).reshape(t.shape)
        if k != expect or not np.array_equal(t, want):
            print("bad message: got %d where %d was due (equal=%s)" % (k, expect, np.array_equal(t, want)), flush=True)
            sys.exit(1)
        print("got %d" % k, flush=True)
        expect += 1
print("end %d" % expect, flush=True)
