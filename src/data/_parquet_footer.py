"""Where a Parquet file keeps its footer and page index, read from the file's own bytes.

The run page reads a mart's footer and the page index of the row group holding its run in one
round trip when it knows their byte ranges beforehand (src/data/_run_parquet.py ``file_layout``
puts them in data/marts/run_marts.json). pyarrow exposes neither the footer's offset nor the page
index's offsets, so this decodes the footer (Thrift compact protocol, the format's spec) just
far enough to find them. Pure: ``parse(footer_bytes)`` takes the FileMetaData bytes.
"""

from __future__ import annotations

import struct

# Thrift compact protocol field types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    def byte(self) -> int:
        value = self.data[self.at]
        self.at += 1
        return value

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int):
        if kind in (_TRUE, _FALSE):  # a bool field carries its value in its type
            return kind == _TRUE
        if kind == _BYTE:
            return self.byte()
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            self.at += 8
            return None
        if kind == _BINARY:
            n = self.varint()
            self.at += n
            return self.data[self.at - n:self.at]
        if kind in (_LIST, _SET):
            head = self.byte()
            size, item = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            if item in (_TRUE, _FALSE):  # list elements of type bool are one byte each
                return [self.byte() == 1 for _ in range(size)]
            return [self.value(item) for _ in range(size)]
        if kind == _MAP:
            size = self.varint()
            if size == 0:
                return {}
            types = self.byte()
            return {self.value(types >> 4): self.value(types & 0x0F) for _ in range(size)}
        if kind == _STRUCT:
            return self.struct()
        raise ValueError(f"Thrift compact type {kind} at byte {self.at}: not a Parquet footer")

    def struct(self) -> dict:
        fields = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return fields
            delta, kind = head >> 4, head & 0x0F
            field = last + delta if delta else self.zigzag()
            fields[field] = self.value(kind)
            last = field


def parse(footer: bytes) -> dict:
    """The FileMetaData struct as {field id: value} (nested structs likewise)."""
    return _Reader(footer).struct()


def read_footer(path) -> tuple[int, int, dict]:
    """(file size, offset of the FileMetaData, the parsed FileMetaData) of a Parquet file."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(size - 8)
        length_bytes, magic = f.read(4), f.read(4)
        if magic != b"PAR1":
            raise ValueError(f"{path}: not a Parquet file (no PAR1 at its end)")
        (length,) = struct.unpack("<I", length_bytes)
        start = size - 8 - length
        f.seek(start)
        return size, start, parse(f.read(length))


# FileMetaData.row_groups = 4; RowGroup.columns = 1, num_rows = 3; ColumnChunk: meta_data = 3,
# offset_index_offset = 4, offset_index_length = 5, column_index_offset = 6, column_index_length = 7;
# ColumnMetaData.path_in_schema = 3 (parquet.thrift).
def page_index_spans(metadata: dict, column: str) -> list[dict]:
    """Per row group: its rows and the byte ranges [start, end) of the column index of ``column``
    and of every column's offset index (None where the file has none), which a reader of that
    row group by ``column`` asks for before any data page."""
    out = []
    for group in metadata.get(4, []):
        column_index = None
        offsets = []
        for chunk in group.get(1, []):
            path = [p.decode() for p in chunk.get(3, {}).get(3, [])]
            if 4 in chunk and 5 in chunk:
                offsets.append((chunk[4], chunk[4] + chunk[5]))
            if path == [column] and 6 in chunk and 7 in chunk:
                column_index = [chunk[6], chunk[6] + chunk[7]]
        offset_index = [min(s for s, _ in offsets), max(e for _, e in offsets)] if offsets else None
        out.append({"rows": group.get(3, 0), "column_index": column_index, "offset_index": offset_index})
    return out
