"""What an Arm ELF's build attributes (.ARM.attributes, read by elf.arm_attributes) say it was built for: the
architecture (Tag_CPU_arch, Tag_CPU_arch_profile) and the floating-point instructions it may use (Tag_FP_arch,
Tag_ABI_VFP_args), as the ABI's addenda number them."""

from __future__ import annotations

from pathlib import Path

from switchscope.decode import elf

# Tag_CPU_arch of the Arm build attributes (the ABI's addenda), as the architecture's name; 10 is v7, whose
# profile (Tag_CPU_arch_profile: A, R or M) tells v7-M from the others
ARM_ARCHITECTURES = {1: "ARMv4", 2: "ARMv4T", 3: "ARMv5T", 4: "ARMv5TE", 5: "ARMv5TEJ", 6: "ARMv6", 7: "ARMv6KZ",
                     8: "ARMv6T2", 9: "ARMv6K", 11: "ARMv6-M", 12: "ARMv6S-M", 13: "ARMv7E-M", 14: "ARMv8-A",
                     15: "ARMv8-R", 16: "ARMv8-M.baseline", 17: "ARMv8-M.mainline", 18: "ARMv8.1-A", 19: "ARMv8.2-A",
                     20: "ARMv8.3-A", 21: "ARMv8.1-M.mainline", 22: "ARMv9-A"}
# the Cortex-M cores of each M-profile architecture, for messages
ARM_M_CORES = {"ARMv6-M": "Cortex-M0, M0+ or M1", "ARMv6S-M": "Cortex-M0, M0+ or M1", "ARMv7-M": "Cortex-M3",
               "ARMv7E-M": "Cortex-M4 or M7", "ARMv8-M.baseline": "Cortex-M23",
               "ARMv8-M.mainline": "Cortex-M33 or M35P", "ARMv8.1-M.mainline": "Cortex-M55 or M85"}


def arm_architecture(path: Path) -> str | None:
    """The architecture an Arm ELF was built for ("ARMv7-M", "ARMv7E-M"), as the compiler recorded it in
    its build attributes (.ARM.attributes, Tag_CPU_arch); None where the ELF records none, or damaged ones."""
    tags = elf.arm_attributes(path) or {}
    arch = tags.get("TAG_CPU_ARCH")
    if arch == 10:
        profile = {65: "A", 82: "R", 77: "M"}.get(tags.get("TAG_CPU_ARCH_PROFILE"))
        return f"ARMv7-{profile}" if profile else "ARMv7"
    return ARM_ARCHITECTURES.get(arch)


# Tag_FP_arch: the floating-point instructions an Arm ELF may use (0 or absent: none)
ARM_FP_ARCHITECTURES = {1: "VFPv1", 2: "VFPv2", 3: "VFPv3", 4: "VFPv3-D16", 5: "VFPv4", 6: "VFPv4-D16",
                        7: "ARMv8 FP", 8: "ARMv8 FP-D16"}


def arm_floating_point(path: Path) -> str | None:
    """The floating-point instructions an Arm ELF's build attributes allow it (Tag_FP_arch, as "VFPv4-D16", and
    ", hard-float calls" where Tag_ABI_VFP_args passes arguments in FP registers); None for a soft-float build,
    or one that records nothing."""
    tags = elf.arm_attributes(path) or {}
    fp = tags.get("TAG_FP_ARCH")
    if not fp:
        return None
    return ARM_FP_ARCHITECTURES.get(fp, f"Tag_FP_arch {fp}") + (", hard-float calls"
                                                                if tags.get("TAG_ABI_VFP_ARGS") == 1 else "")
