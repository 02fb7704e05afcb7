"""Reading a user's JSON file with errors that name the file and what it was meant to be."""
import json


def read_json(path, what):
    """The parsed contents of `path`; ValueError("<what> <path> cannot be read: ..." / "... is not JSON: ...")."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ValueError(f"{what} {path} cannot be read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{what} {path} is not JSON: {e}") from None
