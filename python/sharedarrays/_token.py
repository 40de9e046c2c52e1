"""The bearer token of this user's Flight bridge servers (the Java bridge's TokenFile), for pyarrow clients.

A server started without a token (`bin/sharedarrays serve`) requires this user's default token, which it
keeps in a file only this user can read; a pyarrow client on the same host sends it:

    import pyarrow.flight as fl, sharedarrays as sa
    auth = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + sa.flight_token().encode())])
"""

from __future__ import annotations

import os
import stat


def flight_token_file() -> str:
    """Where this user's default token is: SHARED_ARRAYS_FLIGHT_TOKEN_FILE if set, else
    $XDG_RUNTIME_DIR/sharedarrays/flight-token, else ~/.local/share/sharedarrays/runtime/flight-token."""
    env = os.environ.get("SHARED_ARRAYS_FLIGHT_TOKEN_FILE", "")
    if env.strip():
        return os.path.abspath(env)
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/") and os.path.isdir(runtime):
        return os.path.join(runtime, "sharedarrays", "flight-token")
    return os.path.join(os.path.expanduser("~"), ".local", "share", "sharedarrays", "runtime", "flight-token")


def flight_token() -> str:
    """The token in flight_token_file(). FileNotFoundError if no server of this user has made it yet;
    PermissionError if the file is another user's or others may read it (its token is no secret then)."""
    path = flight_token_file()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise PermissionError(f"the bearer token file {path} is not a file of this user with mode 0600"
                                  f" (uid {st.st_uid}, mode {oct(st.st_mode & 0o7777)}): remove it and start the server again")
        token = os.read(fd, 4096).decode("ascii").strip()
    finally:
        os.close(fd)
    if not token:
        raise PermissionError(f"the bearer token file {path} is empty; remove it and start the server again")
    return token
