"""One large synthetic DiskSpd XML result (``-Rxml``), for the benchmark.

A DiskSpd result grows with its threads (one ``<Thread>`` block each) and its time spans; this
writes one time span with as many threads as the size asks, each on its own target, in the
element layout of ``tests/fixtures/diskspd`` (2.0.21a). Synthetic: never goes into data/raw.

>>> from iopscope.parsers import diskspd_xml
>>> name, text = big_file(30000)
>>> r = diskspd_xml.parse(text)
>>> name, r.issues, r.status, r.tables["fio_jobs"][0]["numjobs"] > 10
('synth_diskspd.xml', [], 'complete', True)
"""

from __future__ import annotations

import random


def big_file(target_bytes: int, seed: int = 1) -> tuple[str, str]:
    """(file name, text) of a DiskSpd XML result about ``target_bytes`` long."""
    rng = random.Random(f"iopscope-synth/{seed}/diskspd")
    threads, size = [], 0
    while size < target_bytes - 2000:
        reads, writes = rng.randint(90000, 110000), rng.randint(35000, 45000)
        block = (f"<Thread>\n<Id>{len(threads)}</Id>\n<Target>\n<Path>#{len(threads) + 1}</Path>\n"
                 f"<BytesCount>{(reads + writes) * 8192}</BytesCount>\n<FileSize>10737418240</FileSize>\n"
                 f"<IOCount>{reads + writes}</IOCount>\n<ReadBytes>{reads * 8192}</ReadBytes>\n<ReadCount>{reads}</ReadCount>\n"
                 f"<WriteBytes>{writes * 8192}</WriteBytes>\n<WriteCount>{writes}</WriteCount>\n"
                 f"<AverageReadLatencyMilliseconds>{rng.uniform(0.5, 1.5):.3f}</AverageReadLatencyMilliseconds>\n"
                 f"<AverageWriteLatencyMilliseconds>{rng.uniform(0.8, 2.0):.3f}</AverageWriteLatencyMilliseconds>\n"
                 "</Target>\n</Thread>\n")
        threads.append(block)
        size += len(block)
    head = ("<Results>\n<System>\n<ComputerName>synth-host</ComputerName>\n<Tool>\n<Version>2.0.21a</Version>\n</Tool>\n"
            "</System>\n<Profile>\n<TimeSpans>\n<TimeSpan>\n<Duration>60</Duration>\n<Targets>\n<Target>\n<Path>#1</Path>\n"
            "<BlockSize>8192</BlockSize>\n<DisableOSCache>true</DisableOSCache>\n<Random>8192</Random>\n"
            "<RequestCount>8</RequestCount>\n<WriteRatio>30</WriteRatio>\n</Target>\n</Targets>\n</TimeSpan>\n</TimeSpans>\n"
            f"</Profile>\n<TimeSpan>\n<TestTimeSeconds>60.00</TestTimeSeconds>\n<ThreadCount>{len(threads)}</ThreadCount>\n"
            "<Latency>\n<AverageReadMilliseconds>0.950</AverageReadMilliseconds>\n"
            "<AverageWriteMilliseconds>1.310</AverageWriteMilliseconds>\n</Latency>\n")
    return "synth_diskspd.xml", head + "".join(threads) + "</TimeSpan>\n</Results>\n"
