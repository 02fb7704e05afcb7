"""Reading an op dump (torch.npu.set_dump's directory, or a compare recording): the manifest, the
tensors as numpy arrays, and their value ranges."""
import json
import os

import numpy as np


def load_manifest(dump_dir):
    """The manifest.json of a dump directory, with a clear error when it is missing."""
    path = os.path.join(dump_dir, "manifest.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{dump_dir} has no manifest.json: is it a dump directory, and did the run call "
                                "torch.npu.finalize_dump()?")
    with open(path) as f:
        return json.load(f)


def load_tensor(dump_dir, tensor):
    """The array of one manifest tensor entry, or None when the dump could not write it."""
    return np.load(os.path.join(dump_dir, tensor["file"])) if tensor.get("file") else None


def value_range(array):
    """{'min', 'max', 'absmax', 'nan', 'inf'} of an array (over its finite values; None when empty)."""
    if array is None:
        return None
    values = np.asarray(array)
    if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.number):
        values = values.astype(np.float64)
    values = values.astype(np.float64, copy=False).ravel()
    finite = values[np.isfinite(values)]
    return {"min": float(finite.min()) if finite.size else None,
            "max": float(finite.max()) if finite.size else None,
            "absmax": float(np.abs(finite).max()) if finite.size else None,
            "nan": int(np.isnan(values).sum()), "inf": int(np.isinf(values).sum()), "numel": int(values.size)}


def describe(dump_dir, tensor, role, i):
    """One line: role, index, dtype, shape, formats and value range of a manifest tensor."""
    fmt = tensor.get("format", "")
    storage = tensor.get("storage_format", fmt)
    layout = fmt if storage == fmt else f"{fmt} (stored {storage})"
    r = value_range(load_tensor(dump_dir, tensor))
    if r is None:
        values = "not dumped"
    elif r["numel"] == 0:
        values = "empty"
    else:
        values = (f"min {r['min']:.6g}  max {r['max']:.6g}  absmax {r['absmax']:.6g}" if r["min"] is not None
                  else "no finite value")
        values += f"  nan {r['nan']}  inf {r['inf']}"
    return f"  {role} {i}: {tensor.get('dtype')} {tensor.get('shape')} {layout}: {values}".rstrip()
