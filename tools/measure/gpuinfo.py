"""gpuinfo.py - NVML access for measure.py: the GPU (or MIG slice) that CUDA device 0
is, its name as dippm's GPU table spells it, memory, the energy counter, clocks.

pynvml (from the nvidia-ml-py package) is imported only when a Nvml object is
made, i.e. only on GPU runs; the name mapping below needs nothing.
"""

import os
import re

# NVML product names -> the names of dippm's GPU table (src/core/gpu.c). The first
# pattern that matches (case-insensitive, on the name without "NVIDIA " and
# without a " MIG ..." suffix) wins. Names not listed are written as NVML gives
# them (without "NVIDIA "); `--gpu-name` overrides the mapping.
GPU_NAMES = [
    (r"^A100-SXM4-40GB$", "A100-SXM4-40GB"),
    (r"^A100-SXM4-80GB$", "A100-SXM4-80GB"),
    (r"^A100-PCIE-40GB$", "A100-PCIe-40GB"),
    (r"^A100 80GB PCIe$|^A100-PCIE-80GB$", "A100-PCIe-80GB"),
    (r"^H100 80GB HBM3$|^H100-SXM5-80GB$|^H100 SXM5 80GB$", "H100-SXM5-80GB"),
    (r"^H100 PCIe$|^H100-PCIE-80GB$", "H100-PCIe-80GB"),
    (r"^H200$|^H200 SXM|^H200-SXM", "H200-SXM-141GB"),
    (r"^L4$", "L4-PCIe-24GB"),
    (r"^Tesla T4$|^T4$", "T4-PCIe-16GB"),
    (r"^Tesla V100-PCIE-32GB$|^V100-PCIE-32GB$", "V100-PCIe-32GB"),
]

_MIG_RE = re.compile(r"\bMIG\s+(\d+g\.\d+gb(?:\+me)?)", re.IGNORECASE)


def split_device_name(name):
    """'NVIDIA A100-SXM4-40GB MIG 3g.20gb' -> ('A100-SXM4-40GB', '3g.20gb').
    The MIG part is None for a whole GPU."""
    if isinstance(name, bytes):
        name = name.decode()
    name = name.strip()
    m = _MIG_RE.search(name)
    mig = m.group(1).lower() if m else None
    if m:
        name = name[:m.start()].strip()
    if name.upper().startswith("NVIDIA "):
        name = name[7:].strip()
    return name, mig


def dippm_gpu_name(nvml_name):
    """The GPU-table name for an NVML/CUDA device name, and the MIG profile."""
    base, mig = split_device_name(nvml_name)
    for pat, table_name in GPU_NAMES:
        if re.search(pat, base, re.IGNORECASE):
            return table_name, mig
    return base, mig


def _s(v):
    return v.decode() if isinstance(v, bytes) else v


class Nvml:
    """NVML handles for CUDA device 0 of this process. With a MIG device in
    CUDA_VISIBLE_DEVICES (MIG-<uuid>), `handle` is the MIG device (its memory)
    and `parent` the physical GPU (energy, power, clocks: board-wide)."""

    def __init__(self):
        import pynvml  # nvidia-ml-py; GPU runs only
        self.nv = pynvml
        pynvml.nvmlInit()
        self.handle = self._find_handle()
        self.parent = self.handle
        self.is_mig = False
        try:
            if pynvml.nvmlDeviceIsMigDeviceHandle(self.handle):
                self.is_mig = True
                self.parent = pynvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self.handle)
        except (pynvml.NVMLError, AttributeError):
            pass

    def _find_handle(self):
        nv = self.nv
        vis = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
        if vis.startswith(("GPU-", "MIG-")):
            return nv.nvmlDeviceGetHandleByUUID(vis)
        if vis.isdigit():
            # measure.py sets CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's order.
            return nv.nvmlDeviceGetHandleByIndex(int(vis))
        return nv.nvmlDeviceGetHandleByIndex(0)

    def close(self):
        try:
            self.nv.nvmlShutdown()
        except self.nv.NVMLError:
            pass

    def _try(self, fn, *args):
        try:
            return fn(*args)
        except self.nv.NVMLError:
            return None

    def name(self):
        return _s(self.nv.nvmlDeviceGetName(self.handle))

    def driver(self):
        return _s(self._try(self.nv.nvmlSystemGetDriverVersion))

    def device_used_mib(self):
        """Used memory of the device (the MIG slice on MIG), as nvidia-smi shows."""
        info = self._try(self.nv.nvmlDeviceGetMemoryInfo, self.handle)
        return None if info is None else info.used / 1048576.0

    def process_used_mib(self, pid):
        """This process's used memory from NVML's process list, or None when the
        driver does not report it (containers with their own PID namespace, some
        MIG setups)."""
        for fn in ("nvmlDeviceGetComputeRunningProcesses_v3",
                   "nvmlDeviceGetComputeRunningProcesses"):
            f = getattr(self.nv, fn, None)
            if f is None:
                continue
            procs = self._try(f, self.handle)
            if procs is None:
                continue
            for p in procs:
                if p.pid == pid and p.usedGpuMemory is not None:
                    return p.usedGpuMemory / 1048576.0
            return None
        return None

    def energy_mj(self):
        """Total energy of the board since driver load, mJ (None if unsupported)."""
        return self._try(self.nv.nvmlDeviceGetTotalEnergyConsumption, self.parent)

    def clocks(self):
        nv = self.nv
        out = {
            "sm_mhz": self._try(nv.nvmlDeviceGetClockInfo, self.parent, nv.NVML_CLOCK_SM),
            "mem_mhz": self._try(nv.nvmlDeviceGetClockInfo, self.parent, nv.NVML_CLOCK_MEM),
            "sm_max_mhz": self._try(nv.nvmlDeviceGetMaxClockInfo, self.parent, nv.NVML_CLOCK_SM),
        }
        lim = self._try(nv.nvmlDeviceGetEnforcedPowerLimit, self.parent)
        out["power_limit_w"] = None if lim is None else lim / 1000.0
        return out
