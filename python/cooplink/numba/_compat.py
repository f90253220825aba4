"""The numba-cuda this layer needs, checked on import with a message that names the versions."""

MINIMUM = (0, 30, 4)
MINIMUM_TEXT = ".".join(map(str, MINIMUM))


def _version_tuple(text):
    out = []
    for part in text.split("+")[0].split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def numba_cuda_version():
    """numba-cuda's version string, or None when it is not installed."""
    try:
        from importlib.metadata import version, PackageNotFoundError
    except ImportError:  # pragma: no cover
        return None
    try:
        return version("numba-cuda")
    except PackageNotFoundError:
        return None


def check(found=None):
    """Raises ImportError naming the minimum when numba-cuda is missing or older than it."""
    found = numba_cuda_version() if found is None else found
    if found is None:
        raise ImportError(f"cooplink.numba needs numba-cuda >= {MINIMUM_TEXT}; it is not installed "
                          f"(pip install 'numba-cuda[cu13]>={MINIMUM_TEXT}')")
    if _version_tuple(found) < MINIMUM:
        raise ImportError(f"cooplink.numba needs numba-cuda >= {MINIMUM_TEXT}; found numba-cuda {found} "
                          f"(pip install -U 'numba-cuda[cu13]>={MINIMUM_TEXT}')")
    return found


def describe():
    found = check()
    import numba
    return f"{found} (numba {numba.__version__}; minimum {MINIMUM_TEXT})"
