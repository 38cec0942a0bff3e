// Contracts re-exports ContractTypes (every contract's messages and typed clients, split out so an
// app's build needs no C library), so that every `import Contracts` keeps seeing them.
@_exported public import ContractTypes
