"""The list of every patch torch_npu makes to torch, and the one function that applies them.

Note [The list of patches to torch]
Each replacement of a torch attribute (a function, a method, a class, a module's view of torch, a
multiprocessing reducer) is declared below as a Patch: the dotted target, why, the torch release it
was written against and the test under test/python that exercises it. Code applies a patch only
through `replace(target, new)`, which refuses an undeclared target, sets it, records it, and does
nothing the second time (so every installer is idempotent). test/python/patches/test_torch_patches.py checks the list
(every test exists; after `import torch_npu` every recorded target holds its replacement) and scans
torch_npu's sources: an assignment to a torch attribute anywhere but here fails it.

A target names an attribute ("torch.Tensor.__deepcopy__"; the longest prefix that is an imported
module is the module, so "torch.nn.parallel.data_parallel.parallel_apply" is that module's attribute)
or an item of a dict ("...ForkingPickler._extra_reducers[torch.FloatStorage]"). A Patch whose target
has a `<...>` part declares a family, applied name by name with `family=` (the tensor factories
transfer_to_npu redirects, every torch.cuda API). `when` says under which condition the installer
applies a patch, if not always. There are two lists: TORCH_NPU, what `import torch_npu` applies
(in that order), and TRANSFER_TO_NPU, what `import torch_npu.contrib.transfer_to_npu` applies on
top of it (several of its targets are TORCH_NPU's, wrapped again).
"""
import dataclasses
import inspect
import re
import sys

TORCH_VERSION = "1.13"


@dataclasses.dataclass(frozen=True)
class Patch:
    target: str      # the dotted name replaced; a `<...>` part stands for each name of a family
    covered_by: str  # the test that exercises it: a path under test/python (runtime/test_x.py), or path::test
    reason: str      # why, in one line
    when: str = ""   # the condition under which it is applied, if not always
    torch_version: str = TORCH_VERSION


_FSDP = "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"
_NO_CUDA = "torch.cuda.is_available() is False"
_TRANSFER_CHECKS = ("porting/test_migration.py::"
                    "test_transfer_redirects_devices_torch_cuda_generators_and_names_what_it_cannot")
_DIST = "torch.distributed is available"

TORCH_NPU = (
    # torch_npu/_tensor_methods.py
    Patch("torch.Tensor.npu", "runtime/test_device_name.py::test_tensor_device_reports_npu",
          "tensor.npu(): a copy on the NPU, torch_npu's spelling of .cuda()"),
    Patch("torch.Tensor.is_npu", "runtime/test_device_name.py::test_tensor_device_reports_npu",
          "tensor.is_npu, as tensor.is_cuda"),
    Patch("torch.nn.Module.npu", "tensors/test_parameter_identity.py::test_tied_weights_survive_npu_and_to",
          "module.npu(): parameters and buffers to the NPU, convolution and batch-norm ones in private formats"),
    Patch("torch.nn.Module.to", "tensors/test_parameter_identity.py::test_tied_weights_survive_npu_and_to",
          "a move to the NPU casts parameters to private formats, as module.npu() does (_module_formats.py)"),
    Patch("torch.Tensor.__repr__", "runtime/test_device_name.py::test_print_shows_values_and_device",
          "formats a host copy of an NPU tensor: torch's formatter runs ~16 device ops per print"),
    Patch("torch.Tensor.pin_memory", "training/test_dataloader.py::test_batches_are_pinned_for_the_npu",
          "without a device, pins for the NPU on a build without CUDA (torch's default device for pinning)"),
    Patch("torch.Tensor.is_pinned", "training/test_dataloader.py::test_batches_are_pinned_for_the_npu",
          "without a device, asks about the NPU on a build without CUDA, as pin_memory"),
    Patch("torch.manual_seed", "runtime/test_random.py::test_torch_manual_seed_also_seeds_the_npu",
          "also seeds every NPU's generator, as it seeds CUDA's"),
    Patch("torch.random.manual_seed", "runtime/test_random.py::test_torch_manual_seed_also_seeds_the_npu",
          "torch.manual_seed's replacement under torch.random's name"),
    # torch_npu/_serialization.py (Note [NPU storages in Python])
    Patch("torch.UntypedStorage.cpu", "tensors/test_serialization.py::test_file_roundtrip",
          "torch.save copies every storage to the host; 1.13's C++ copy rejects NPU storages"),
    Patch("torch.UntypedStorage.clone", "tensors/test_serialization.py::test_deepcopy_of_npu_module",
          "copy.deepcopy clones storages; 1.13's C++ clone rejects NPU storages"),
    Patch("torch.UntypedStorage.resize_", "distributed/test_fsdp.py::test_two_ranks_train_as_one_process",
          "FSDP frees and re-gathers parameters by resizing storages; 1.13 rejects NPU storages"),
    Patch("torch._utils._rebuild_tensor", "tensors/test_serialization.py::test_views_share_storage_after_load",
          "torch.load views a tensor onto a loaded NPU storage, which 1.13's set_ refuses"),
    Patch("torch.Tensor.__deepcopy__",
          "tensors/test_serialization.py::test_deepcopy_of_plain_npu_tensors_and_state_dicts",
          "clones a plain NPU tensor, as torch does for XLA: 1.13's set_ onto a cloned NPU storage is refused"),
    Patch("torch.save",
          "runtime/test_faults.py::test_a_checkpoint_interrupted_by_a_fault_leaves_the_previous_one_whole",
          "writes a temporary file and renames it over the target (Note [Checkpoints are written whole])"),
    Patch("torch.load", "runtime/test_faults.py::test_a_corrupted_checkpoint_is_refused_naming_the_file_and_record",
          "checks every record's CRC-32 first (Note [Checkpoints are verified on load])"),
    # torch_npu/_formats.py, torch_npu/_custom_ops.py
    Patch("torch.Tensor.npu_format_cast", "tensors/test_formats.py::test_cast_roundtrip_keeps_values",
          "tensor.npu_format_cast(format), torch_npu's method spelling of torch_npu.npu_format_cast"),
    Patch("torch.Tensor.npu_format_cast_", "tensors/test_formats.py::test_format_cast_to_another_tensors_format",
          "tensor.npu_format_cast_(format): changes the storage format in place"),
    Patch("torch.Tensor.<custom op>", "ops/test_custom_ops.py::test_tensor_methods",
          "the custom ops torch_npu also offers as Tensor methods (_custom_ops.TENSOR_METHODS)"),
    # torch_npu/npu: generator.py, autograd_profiler.py, amp/autocast_mode.py
    Patch("torch.Generator", "runtime/test_generators.py::test_npu_generator_is_a_torch_generator",
          "torch.Generator(device='npu') makes an NPU generator; 1.13's constructor knows only the CPU and CUDA"),
    Patch("torch.autograd.profiler_util.<FunctionEvent, FunctionEventAvg>.<npu_* column>",
          "tools/test_autograd_profiler.py::test_npu_total_of_the_table_is_the_sum_of_the_op_records",
          "npu_time_total & co.: torch_npu's names of the device-time and device-memory columns"),
    Patch("torch.autograd.profiler.profile",
          "tools/test_autograd_profiler.py::test_npu_total_of_the_table_is_the_sum_of_the_op_records",
          "accepts use_npu=True: NPU time per host op from the op records"),
    Patch("torch.autocast", _TRANSFER_CHECKS,
          "torch.autocast('npu', ...) is torch.npu.amp.autocast; 1.13 accepts only cuda, cpu and xpu"),
    # torch_npu/distributed
    Patch("torch.distributed.utils._recursive_to",
          "distributed/test_distributed.py::test_ddp_resnet18_two_processes_equal_one_process",
          "DDP(device_ids=[i]) moves inputs to npu:i; 1.13 makes an int a CUDA device", when=_DIST),
    Patch("torch.distributed.distributed_c10d.ProcessGroupGloo",
          "distributed/test_distributed.py::test_gloo_stages_npu_tensors_through_the_host",
          "gloo groups stage NPU tensors through host memory (a subclass: isinstance is unchanged)",
          when="torch.distributed is available and gloo is built"),
    # torch_npu/_patches: random.py, checkpoint.py
    Patch("torch.random.fork_rng", "runtime/test_random.py::test_fork_rng_for_the_npu",
          "device_type='npu' forks the NPU generators, as in torch 2.x"),
    Patch("torch.random.seed", "runtime/test_random.py::test_torch_seed_seeds_the_npus_with_the_seed_it_returns",
          "also seeds the NPUs with the seed it draws, as it seeds CUDA's"),
    Patch("torch.seed", "runtime/test_random.py::test_torch_seed_seeds_the_npus_with_the_seed_it_returns",
          "torch.random.seed's replacement under torch's name"),
    Patch("torch.utils.checkpoint.CheckpointFunction.forward",
          "training/test_checkpoint.py::test_checkpointed_dropout_block_matches_the_plain_block_bit_for_bit",
          "the recompute replays the forward's NPU RNG and autocast state (Note [Checkpoint recompute on the NPU])"),
    Patch("torch.utils.checkpoint._checkpoint_without_reentrant",
          "training/test_checkpoint.py::test_checkpointed_dropout_block_matches_the_plain_block_bit_for_bit",
          "the same for use_reentrant=False"),
    # torch_npu/_patches/data_parallel.py (Note [DataParallel on the NPU])
    Patch("torch._utils._get_available_device_type",
          "distributed/test_data_parallel.py::test_default_device_ids_are_every_npu",
          "'npu' when there are NPUs and no CUDA; 1.13 answers None and DataParallel runs on one device"),
    Patch("torch._utils._get_device_attr",
          "distributed/test_data_parallel.py::test_device_properties_carry_what_cuda_code_reads",
          "reads torch.npu when there are NPUs and no CUDA"),
    Patch("torch.nn.parallel.data_parallel._get_available_device_type",
          "distributed/test_data_parallel.py::test_default_device_ids_are_every_npu",
          "the same function, which data_parallel imported by name"),
    Patch("torch.nn.parallel.comm.<primitive>", "distributed/test_data_parallel.py::test_comm_primitives",
          "broadcast, broadcast_coalesced, scatter, gather and reduce_add get an NPU path (1.13's are CUDA's C++)"),
    Patch("torch.nn.parallel.parallel_apply.parallel_apply",
          "distributed/test_data_parallel.py::test_replicas_run_under_the_callers_autocast",
          "runs each replica under its NPU, that NPU's stream and the caller's grad mode and NPU autocast"),
    Patch("torch.nn.parallel.data_parallel.parallel_apply",
          "distributed/test_data_parallel.py::test_replicas_run_under_the_callers_autocast",
          "the same function, which data_parallel imported by name"),
    # torch_npu/_patches/sharing.py (Note [NPU memory is not shared between processes])
    Patch("torch.UntypedStorage.share_memory_",
          "tensors/test_process_sharing.py::test_share_memory_of_npu_memory_says_why_and_what_to_do",
          "says why NPU memory cannot be shared, instead of `_share_fd_: only available on CPU`"),
    Patch("torch.storage.TypedStorage.share_memory_",
          "tensors/test_process_sharing.py::test_share_memory_of_npu_memory_says_why_and_what_to_do",
          "the same for typed storages"),
    Patch("torch.Tensor.share_memory_",
          "tensors/test_process_sharing.py::test_share_memory_of_npu_memory_says_why_and_what_to_do",
          "the same for tensors (and Module.share_memory)"),
    Patch("torch.multiprocessing.reductions.ForkingPickler._extra_reducers[<tensor or storage class>]",
          "tensors/test_process_sharing.py::test_pickling_npu_memory_for_another_process_is_refused",
          "pickling an NPU tensor or storage for another process says why it cannot be"),
    # torch_npu/_patches: cuda_amp.py, object_collectives.py, testing.py
    Patch("torch.cuda.amp.custom_fwd",
          "training/test_amp.py::test_torch_cuda_amp_decorators_keep_a_function_in_fp32_under_npu_autocast",
          "torch.npu.amp's: torch's reads only CUDA autocast, never on without CUDA", when=_NO_CUDA),
    Patch("torch.cuda.amp.custom_bwd", "training/test_amp.py::test_custom_bwd_runs_under_the_forwards_autocast_state",
          "torch.npu.amp's: the backward runs under the forward's NPU autocast state", when=_NO_CUDA),
    Patch("torch.cuda.amp.autocast_mode.custom_fwd",
          "training/test_amp.py::test_torch_cuda_amp_decorators_keep_a_function_in_fp32_under_npu_autocast",
          "torch.cuda.amp.custom_fwd's replacement under its module's name", when=_NO_CUDA),
    Patch("torch.cuda.amp.autocast_mode.custom_bwd",
          "training/test_amp.py::test_custom_bwd_runs_under_the_forwards_autocast_state",
          "torch.cuda.amp.custom_bwd's replacement under its module's name", when=_NO_CUDA),
    Patch("torch.distributed.distributed_c10d._get_pg_device",
          "distributed/test_distributed.py::test_object_collectives_stage_on_the_npu",
          "object collectives of an hccl group stage their bytes on the current NPU, not the CPU", when=_DIST),
    Patch("torch.testing.assert_close",
          "training/test_model_zoo.py::test_torch_jit_script_and_trace_of_a_library_model",
          "compares float64 NPU tensors (storage-only on the NPU) on the host, as jit.trace's check needs"),
    # torch_npu/_patches/fsdp.py (Note [FSDP on the NPU])
    Patch("torch.distributed.<FSDP module>.torch", "distributed/test_fsdp.py::test_two_ranks_train_as_one_process",
          "FSDP's modules see a torch whose cuda is torch.npu's stream and device API", when="FSDP imports"),
    Patch(f"{_FSDP}._get_compute_device", "distributed/test_fsdp.py::test_two_ranks_train_as_one_process",
          "the current NPU where 1.13 takes the current CUDA device", when="FSDP imports"),
    Patch(f"{_FSDP}._materialize_module", "distributed/test_fsdp.py::test_two_ranks_train_as_one_process",
          "materializes on the current NPU where 1.13 takes the current CUDA device", when="FSDP imports"),
    Patch(f"{_FSDP}.clip_grad_norm_", "distributed/test_fsdp.py::test_two_ranks_train_as_one_process",
          "moves the local norm to the compute device where 1.13 calls .cuda() (a source repair)",
          when="FSDP imports"),
    # torch_npu/_patches: sync_batch_norm.py, dataloader.py (source repairs)
    Patch("torch.nn.modules.batchnorm.SyncBatchNorm.forward",
          "distributed/test_distributed.py::test_sync_batch_norm_trains_as_one_batch_norm_over_both_ranks",
          "accepts NPU inputs; 1.13 refuses any input that is not CUDA"),
    Patch("torch.nn.modules._functions.SyncBatchNorm.forward",
          "distributed/test_distributed.py::test_sync_batch_norm_trains_as_one_batch_norm_over_both_ranks",
          "asks is_current_stream_capturing() of CUDA inputs only: it raises without CUDA"),
    Patch("torch.utils.data.dataloader._BaseDataLoaderIter.__init__",
          "training/test_dataloader.py::test_batches_are_pinned_for_the_npu",
          "pin_memory=True pins when an NPU is available; 1.13 pins only when CUDA is"),
    Patch("torch.utils.data.dataloader._MultiProcessingDataLoaderIter.__init__",
          "training/test_dataloader.py::test_batches_are_pinned_for_the_npu",
          "the pin thread gets the NPU's current device without CUDA; 1.13 asks torch.cuda, which raises"),
    Patch("torch.utils.data._utils.pin_memory._pin_memory_loop",
          "training/test_dataloader.py::test_batches_are_pinned_for_the_npu",
          "the pin thread sets the NPU's device without CUDA; 1.13 calls torch.cuda.set_device, which raises"),
    # torch_npu/_patches: autograd_streams.py
    Patch("torch.autograd.backward", "runtime/test_graphs.py::test_a_backward_runs_on_the_stream_of_its_caller",
          "runs the NPU's backward nodes on the caller's current NPU stream; 1.13's engine does so for CUDA only"),
    Patch("torch.autograd.grad", "runtime/test_graphs.py::test_make_graphed_callables_trains_like_the_eager_module",
          "runs the NPU's backward nodes on the caller's current NPU stream; 1.13's engine does so for CUDA only"),
    # torch.npu itself (torch_npu/_patches/__init__.py)
    Patch("torch.npu", "runtime/test_device_name.py::test_degraded_mode_without_hook",
          "torch.npu where torch._register_device_module refuses 'npu' (c10 knows only 'privateuseone')",
          when="degraded device name (torch_npu._device_name.is_native() is False)"),
    Patch("torch.<torch_npu operator>",
          "ops/test_custom_ops.py::test_custom_ops_are_also_in_torchs_namespace_as_in_torch_npus_1_11_line",
          "torch.npu_slice & co.: torch_npu's 1.11 line put its operators in torch's namespace (names torch lacks)"),
)

TRANSFER_TO_NPU = (  # torch_npu/contrib/transfer_to_npu.py (Note [Redirecting CUDA to the NPU])
    Patch("torch.cuda.<API>", _TRANSFER_CHECKS,
          "every public torch.cuda function and class (submodules too) is torch.npu's, or raises naming the CUDA API"),
    Patch("torch.<tensor factory>", _TRANSFER_CHECKS,
          "device='cuda', 'cuda:N' or N means the NPU (transfer_to_npu._FACTORIES)"),
    Patch("torch.Tensor.<new_* method>", _TRANSFER_CHECKS,
          "device='cuda', 'cuda:N' or N means the NPU"),
    Patch("torch.Tensor.to", _TRANSFER_CHECKS,
          "a CUDA device or an int means the NPU"),
    Patch("torch.nn.Module.to", _TRANSFER_CHECKS,
          "a CUDA device or an int means the NPU"),
    Patch("torch.Tensor.cuda", _TRANSFER_CHECKS,
          "a copy on the NPU"),
    Patch("torch.nn.Module.cuda",
          "porting/test_migration.py::test_cuda_script_runs_unmodified_and_converted_with_the_manual_ports_results",
          "parameters and buffers to the NPU"),
    Patch("torch.Tensor.pin_memory", _TRANSFER_CHECKS,
          "a CUDA device means the NPU"),
    Patch("torch.Tensor.is_pinned", _TRANSFER_CHECKS,
          "a CUDA device means the NPU"),
    Patch("torch.device", _TRANSFER_CHECKS,
          "a class whose 'cuda' is the NPU; its instances are torch's devices"),
    Patch("torch.Generator", _TRANSFER_CHECKS,
          "device 'cuda' means the NPU"),
    Patch("torch.load", _TRANSFER_CHECKS,
          "a CUDA map_location means the NPU; a CUDA checkpoint without one loads onto the NPU"),
    Patch("torch.autocast", _TRANSFER_CHECKS,
          "device_type 'cuda' means NPU autocast"),
    Patch("torch.distributed.init_process_group",
          "porting/test_migration.py::test_ddp_over_nccl_runs_on_hccl_unmodified_and_converted",
          "backend 'nccl' means 'hccl'"),
    Patch("torch.distributed.new_group",
          "porting/test_migration.py::test_ddp_over_nccl_runs_on_hccl_unmodified_and_converted",
          "backend 'nccl' means 'hccl'"),
    Patch("torch.distributed.is_nccl_available", _TRANSFER_CHECKS,
          "True: nccl means hccl"),
)

_LISTS = {"torch_npu": TORCH_NPU, "transfer_to_npu": TRANSFER_TO_NPU}
_applied = {}  # (list name, target) -> (its Patch, the replacement)


def patches(namespace="torch_npu"):
    """The declared patches of one list: "torch_npu" (what `import torch_npu` applies) or "transfer_to_npu"."""
    return _LISTS[namespace]


def applied(namespace="torch_npu"):
    """{target: (Patch, replacement)} of what this process has applied from one list."""
    return {target: entry for (name, target), entry in _applied.items() if name == namespace}


def replace(target, new, *, family=None, namespace="torch_npu"):
    """Sets `target` to `new`, once: a later call for the same target and list is a no-op. `target` must be
    declared in the list, or be a member of the declared `family` (a target with a `<...>` part)."""
    declared = family or target
    patch = next((p for p in _LISTS[namespace] if p.target == declared), None)
    if patch is None:
        raise LookupError(f"torch_npu patches {target} without declaring it: add a Patch for {declared!r} to "
                          f"the {namespace} list of torch_npu/_patches/registry.py")
    if not in_family(target, declared):
        raise ValueError(f"{target} is not a member of the family {declared}")
    if (namespace, target) in _applied:
        return
    owner, name = _owner_and_name(target)
    if isinstance(owner, dict):
        owner[name] = new
    else:
        setattr(owner, name, new)
    _applied[namespace, target] = (patch, new)


def in_family(target, family):
    """Whether `target` is `family` or, where `family` has `<...>` parts, one of its members."""
    pattern = ".+".join(re.escape(part) for part in re.split(r"<[^>]*>", family))
    return re.fullmatch(pattern, target) is not None


def current(target):
    """What `target` holds now, as stored (a class's staticmethod stays one)."""
    owner, name = _owner_and_name(target)
    return owner[name] if isinstance(owner, dict) else inspect.getattr_static(owner, name)


def lookup(path):
    """The object a dotted path names: its longest prefix that is an imported module, then attributes."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        obj = sys.modules.get(".".join(parts[:end]))
        if obj is not None:
            break
    else:
        raise LookupError(f"{path}: no prefix of it is an imported module")
    for part in parts[end:]:
        obj = getattr(obj, part)
    return obj


def _owner_and_name(target):
    """(object, attribute name) or (dict, key) of a target."""
    item = re.fullmatch(r"(.+)\[(.+)\]", target)
    if item:
        return lookup(item[1]), lookup(item[2])
    owner, _, name = target.rpartition(".")
    return lookup(owner), name
