"""The family contract as an import-linter contract type: every module of a family package
imports, of this project, only the contract module (byo.families.api), its own package's
modules and, in its builder module alone, the Blender toolkit (byo.blender).

A family package is any package or module directly in `families` other than the `shared`
ones (the contract and what it re-exports), so a family added later is checked without
naming it here. pyproject.toml registers the type (`contract_types`) and configures it.
"""

from __future__ import annotations

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


class FamilyContract(Contract):
    type_name = "family"

    families = fields.StringField()  # the package holding the families: byo.families
    shared = fields.ListField(subfield=fields.StringField())  # its modules that are no family
    contract = fields.StringField()  # the one module of the project a family may import
    toolkit = fields.StringField()  # what the builder may import besides: byo.blender
    builder = fields.StringField()  # the name of a family's builder module: builder

    def family_packages(self, graph: ImportGraph) -> list[str]:
        return sorted(m for m in graph.find_children(self.families) if m not in set(self.shared))

    def allowed(self, family: str, importer: str, imported: str) -> bool:
        root = self.families.split(".")[0]
        if not _within(imported, root):
            return True  # another distribution (numpy, bpy...): other contracts decide
        if imported == self.contract or _within(imported, family):
            return True
        return _within(importer, f"{family}.{self.builder}") and _within(imported, self.toolkit)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        illegal = []
        for family in self.family_packages(graph):
            output.verbose_print(verbose, f"Checking the imports of {family}...")
            for importer in sorted({family} | graph.find_descendants(family)):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if not self.allowed(family, importer, imported):
                        lines = sorted(d["line_number"] for d in graph.get_import_details(
                            importer=importer, imported=imported))
                        illegal.append({"family": family, "importer": importer, "imported": imported,
                                        "lines": lines})
        return ContractCheck(kept=not illegal, metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for i in check.metadata["illegal"]:
            lines = ", ".join(f"l.{n}" for n in i["lines"]) or "l.?"
            output.print_error(f"{i['importer']} -> {i['imported']} ({lines})", bold=False)
        output.new_line()
        output.print(f"A family imports, of {self.families.split('.')[0]}, only {self.contract}, its own "
                     f"modules and (in its {self.builder} module) {self.toolkit}; whatever else it needs, "
                     f"{self.contract} re-exports.")
