"""Asset packs shipped with byo (installed as `byo.packs`): one folder per pack, each with its
pack.yaml manifest and files. See byo/scene/assets.py for the format and README "Asset packs"."""
