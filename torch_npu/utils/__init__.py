"""torch_npu.utils: helpers for code written against torch_npu (C++ extensions: cpp_extension)."""
