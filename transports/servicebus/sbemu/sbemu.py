"""Entry point of the Service Bus emulator: python3 sbemu.py CONFIG.json.

CONFIG.json holds {"entities": [...], "max_message_size": n, "port": p}
(see emulator.go for the exact shape). Once the listener is bound the
program prints "LISTENING 127.0.0.1:PORT" on stdout, then serves until it
is signalled or its stdin closes (the Go side holds stdin open, so an
emulator never outlives the test process that started it).
"""

import json
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from broker import TICK_SECONDS, Broker  # noqa: E402
from loop import Loop  # noqa: E402
from store import Namespace  # noqa: E402


def main(argv):
    with open(argv[1]) as f:
        cfg = json.load(f)
    ns = Namespace(cfg.get("entities") or [])
    broker = Broker(ns, int(cfg.get("max_message_size") or 262144))
    loop = Loop(broker, "127.0.0.1", int(cfg.get("port") or 0), TICK_SECONDS)
    sys.stdout.write("LISTENING 127.0.0.1:%d\n" % loop.port())
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=_exit_on_eof, daemon=True).start()
    loop.run()


def _exit_on_eof():
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
