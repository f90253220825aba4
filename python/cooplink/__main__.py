"""python -m cooplink: the version, the catalog in use, the cache folder, the toolkit and numba-cuda."""

import sys


def main():
    import cooplink
    from cooplink import _lib

    rows = [("cooplink", cooplink.__version__)]
    try:
        env = _lib.environment()
        rows.append(("libcooplink", f"{env['version']} ({_lib._library_path()})"))
        cat = _lib.catalog_dir()
        try:
            bundles, symbols = _lib.catalog(cat).counts()
            rows.append(("catalog", f"{cat} ({bundles} bundles, {symbols} symbols)"))
        except _lib.CooplinkError as e:
            rows.append(("catalog", f"{cat}: unusable: {e}"))
        rows.append(("cache", env["cache_dir"]))
        rows.append(("CUDA toolkit", f"{env['toolkit_root']} (nvJitLink {env['nvjitlink']})"))
    except _lib.CooplinkError as e:
        rows.append(("libcooplink", f"unusable: {e}"))
    try:
        from cooplink.numba import _compat
        rows.append(("numba-cuda", _compat.describe()))
    except ImportError as e:
        rows.append(("numba-cuda", f"not usable: {e}"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
