#!/usr/bin/env python3
"""http_slow.py: slow and silent clients against `serve --http` on
127.0.0.1:PORT (tests/http.sh).

  http_slow.py deadline PORT TOKEN
      1. a connection sends a request header one byte every 0.25 s (the
         header would take 150 s): the server must close it before it is
         complete, so bytes do not move its deadline;
      2. a connection sends a whole header declaring a 1000-byte body, then
         one body byte every 0.25 s (250 s): it must be closed too.
      Each is waited for up to 90 s (the deadline is 10 s from the accept,
      plus 1 s per MiB of a declared body). Prints ok/FAIL lines.

  http_slow.py attack PORT N SECONDS
      N connections, half sending a header byte a second and half sending
      nothing, each replaced by a new one when the server closes it, for
      SECONDS; then prints how many the server closed. Exit 0.
"""
import socket, sys, time

HEADER = (b"POST /input/chain HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
          b"".join(b"X-Slow-%d: %s\r\n" % (i, b"a" * 20) for i in range(25)))


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(None)
    return s


def closed_by_peer(s):
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def trickle(port, first, rest, what):
    s = connect(port)
    if first:
        s.sendall(first)
    start = time.monotonic()
    i = 0
    while time.monotonic() - start < 90:
        if closed_by_peer(s):
            print("ok   - %s: closed by the server after %.1f s, %d of %d bytes sent"
                  % (what, time.monotonic() - start, i, len(rest)))
            return True
        if i < len(rest):
            try:
                s.send(rest[i:i + 1])
            except OSError:
                continue  # closed: seen on the next turn
            i += 1
        time.sleep(0.25)
    print("FAIL - %s: still open after 90 s" % what)
    return False


def deadline(port, token):
    good = trickle(port, b"", HEADER, "a header sent a byte every 0.25 s")
    head = (b"POST /input/chain HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
            token.encode() + b"\r\nContent-Length: 1000\r\n\r\n")
    good &= trickle(port, head, b" " * 1000, "a 1000-byte body sent a byte every 0.25 s")
    return 0 if good else 1


def attack(port, n, seconds):
    end = time.monotonic() + seconds
    conns = [None] * n
    sent = [0] * n
    opened = closed = 0
    while time.monotonic() < end:
        for i in range(n):
            if conns[i] is not None and closed_by_peer(conns[i]):
                conns[i].close()
                conns[i] = None
                closed += 1
            if conns[i] is None:
                try:
                    conns[i] = connect(port)
                    sent[i] = 0
                    opened += 1
                except OSError:
                    continue
            if i % 2 == 0 and sent[i] < len(HEADER):
                try:
                    conns[i].send(HEADER[sent[i]:sent[i] + 1])
                    sent[i] += 1
                except OSError:
                    pass
        time.sleep(1)
    for c in conns:
        if c is not None:
            c.close()
    print("# attack: %d connections opened, %d closed by the server" % (opened, closed))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "deadline":
        sys.exit(deadline(int(sys.argv[2]), sys.argv[3]))
    sys.exit(attack(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
