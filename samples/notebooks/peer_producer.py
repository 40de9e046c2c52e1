"""The Python side of stream_through_a_queue.ipynb: attaches the pool and the queue whose handles are argv[1] and
argv[2], fills 8 slots (frame i: every element i, the first row i * 10) and sends them, then ends the queue."""
import sys

import sharedarrays as sa

pool = sa.Pool.attach(sys.argv[1])
queue = sa.Queue.attach(sys.argv[2])
for i in range(8):
    slot = pool.acquire(timeout=30)
    slot.array[...] = i
    slot.array[0, :] = i * 10
    queue.send(slot, timeout=30)   # the slot moves to the queue: no copy
queue.end()
queue.close()
pool.close()
