"""A throwaway MariaDB (or MySQL) server for TPC-C sweeps: its own datadir, socket and port.

For users who have no database server to test against, and for the tests: ``mariadb-install-db``
creates a fresh datadir, ``mariadbd`` serves it on a Unix socket inside that datadir and on
127.0.0.1 only (never another interface), with the InnoDB buffer pool asked for. Stopping it
sends SIGTERM to the server's own pid (never by name) and waits; the datadir is removed
afterwards unless ``keep`` is set.

Why ``--user=root`` and ``--auth-root-authentication-method=normal``: the server runs as the
invoking user (root on CI machines), and root gets a passwordless login over TCP so that load
generators that cannot use a socket (go-tpc) connect on 127.0.0.1.

>>> s = ThrowawayServer(Path("/tmp/x"), port=3399, buffer_pool="64M")
>>> s.server_command()[:3]
['mariadbd', '--no-defaults', '--user=root']
>>> "--bind-address=127.0.0.1" in s.server_command()
True
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


class ServerError(Exception):
    """The throwaway server could not be created, started or reached; the message says why."""


def find_program(*names: str) -> str | None:
    """The first of ``names`` on PATH (or in /usr/sbin, where Debian puts mariadbd)."""
    for name in names:
        found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
        if found:
            return found
    return None


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class ThrowawayServer:
    """One server on ``datadir``; ``start()`` creates and starts it, ``stop()`` ends it."""

    datadir: Path
    port: int = 0
    buffer_pool: str = "128M"
    keep: bool = False
    extra_options: list[str] = field(default_factory=list)
    server: str = "mariadbd"
    install_db: str = "mariadb-install-db"
    client: str = "mariadb"
    ready_timeout_s: float = 60.0
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def socket(self) -> Path:
        return self.datadir / "mysqld.sock"

    @property
    def error_log(self) -> Path:
        return self.datadir / "error.log"

    @property
    def host(self) -> str:
        return "127.0.0.1"

    def server_command(self) -> list[str]:
        d = self.datadir
        # --no-defaults: the host's /etc/mysql files must not change (or break) the throwaway server
        return [self.server, "--no-defaults", "--user=root", f"--datadir={d}", f"--socket={self.socket}",
                f"--port={self.port}", "--bind-address=127.0.0.1", "--skip-name-resolve",
                f"--innodb-buffer-pool-size={self.buffer_pool}", f"--log-error={self.error_log}",
                f"--pid-file={d / 'mysqld.pid'}", *self.extra_options]

    def start(self) -> "ThrowawayServer":
        for attr, names in (("server", ("mariadbd", "mysqld")),
                            ("install_db", ("mariadb-install-db", "mysql_install_db")),
                            ("client", ("mariadb", "mysql"))):
            if "/" not in getattr(self, attr):
                found = find_program(getattr(self, attr), *names)
                if not found:
                    raise ServerError(f"{names[0]} not found: install MariaDB (Debian: apt-get install mariadb-server)")
                setattr(self, attr, found)
        if self.port == 0:
            self.port = free_port()
        self.datadir.mkdir(parents=True, exist_ok=True)
        if any(self.datadir.iterdir()):
            raise ServerError(f"{self.datadir} is not empty: a throwaway server needs a fresh datadir")
        install = subprocess.run([self.install_db, "--no-defaults", "--user=root", f"--datadir={self.datadir}",
                                  "--auth-root-authentication-method=normal", "--skip-test-db"],
                                 capture_output=True, text=True)
        if install.returncode != 0:
            raise ServerError(f"{self.install_db} exit {install.returncode}: {(install.stderr or install.stdout)[-1500:]}")
        self.proc = subprocess.Popen(self.server_command(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"{self.server} exited with {self.proc.returncode} while starting: "
                                  f"{self._log_tail()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=1):
                    pass
                if self.sql("SELECT 1").strip() == "1":
                    return
            except (OSError, ServerError):
                pass
            time.sleep(0.3)
        self.stop()
        raise ServerError(f"{self.server} not ready after {self.ready_timeout_s:g} s: {self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return self.error_log.read_text(errors="replace")[-1500:]
        except OSError:
            return "(no error log)"

    def sql(self, statement: str, database: str | None = None) -> str:
        """Run SQL as root over the socket; tab-separated output without column names."""
        cmd = [self.client, "--no-defaults", "-u", "root", f"--socket={self.socket}", "--batch",
               "--skip-column-names", "-e", statement]
        if database:
            cmd.insert(-2, database)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "LC_ALL": "C"})
        if proc.returncode != 0:
            raise ServerError(f"{statement[:80]!r}: {proc.stderr.strip()[-1000:]}")
        return proc.stdout

    def stop(self) -> None:
        """SIGTERM to the server's pid, wait for a clean shutdown (SIGKILL after 60 s), then
        remove the datadir unless ``keep``."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if not self.keep:
            shutil.rmtree(self.datadir, ignore_errors=True)

    def __enter__(self) -> "ThrowawayServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def temporary_datadir(parent: str | None = None) -> Path:
    """A new empty directory for a throwaway datadir (under ``parent`` or the temp dir)."""
    return Path(tempfile.mkdtemp(prefix="iopscope-db-", dir=parent))
