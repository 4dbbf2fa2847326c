from typing import Any, Dict, List, Optional, Tuple

class IsobenchError(Exception):
    hint: Optional[str]
    exit_code: int

class UsageError(IsobenchError): ...

class UnknownFormatError(UsageError):
    name: str
    known: List[str]

class ReadError(IsobenchError):
    path: str

class WriteError(IsobenchError):
    path: str

class RecordError(IsobenchError):
    file: Optional[str]
    line: Optional[int]
    instance_id: Optional[str]
    pointer: Optional[str]
    reason: str

class ArrowStream:
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...

class RecordConverter:
    def __init__(self, from_: str, to: str, options: Dict[str, Any]) -> None: ...
    def lines(self, text: bytes) -> Tuple[bytes, List[str], str]: ...

def adapters() -> str: ...
def load_plugin(path: str) -> List[str]: ...
def load_adapter(path: str) -> List[str]: ...
def convert(from_: str, to: str, options: Dict[str, Any]) -> str: ...
def convert_arrow(
    stream: Any, from_: str, to: str, options: Dict[str, Any], all_columns: bool = False
) -> Tuple[ArrowStream, List[str], str]: ...
def arrow_lines(stream: Any) -> List[str]: ...
def validate(
    inputs: List[str], format: str, profile: str
) -> Tuple[int, List[Tuple[str, int, Optional[str], str, str]]]: ...
def mine(options: Dict[str, Any]) -> int: ...
def options(command: str) -> str: ...
