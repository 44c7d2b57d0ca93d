//! The SPIR-V opcodes and enumerant values this generator uses (numbers
//! from the SPIR-V specification, unified 1.6 revision).

// Module-level instructions.
pub const NAME: u16 = 5;
pub const MEMORY_MODEL: u16 = 14;
pub const ENTRY_POINT: u16 = 15;
pub const EXECUTION_MODE: u16 = 16;
pub const CAPABILITY: u16 = 17;
pub const TYPE_VOID: u16 = 19;
pub const TYPE_BOOL: u16 = 20;
pub const TYPE_INT: u16 = 21;
pub const TYPE_VECTOR: u16 = 23;
pub const TYPE_ARRAY: u16 = 28;
pub const TYPE_RUNTIME_ARRAY: u16 = 29;
pub const TYPE_STRUCT: u16 = 30;
pub const TYPE_POINTER: u16 = 32;
pub const TYPE_FUNCTION: u16 = 33;
pub const CONSTANT_TRUE: u16 = 41;
pub const CONSTANT_FALSE: u16 = 42;
pub const CONSTANT: u16 = 43;
pub const FUNCTION: u16 = 54;
pub const FUNCTION_END: u16 = 56;
pub const VARIABLE: u16 = 59;
pub const DECORATE: u16 = 71;
pub const MEMBER_DECORATE: u16 = 72;

// Memory.
pub const LOAD: u16 = 61;
pub const STORE: u16 = 62;
pub const ACCESS_CHAIN: u16 = 65;
pub const COMPOSITE_EXTRACT: u16 = 81;

// Arithmetic, logic, comparison.
pub const I_ADD: u16 = 128;
pub const I_SUB: u16 = 130;
pub const I_MUL: u16 = 132;
pub const U_DIV: u16 = 134;
pub const S_DIV: u16 = 135;
pub const U_MOD: u16 = 137;
pub const LOGICAL_OR: u16 = 166;
pub const LOGICAL_AND: u16 = 167;
pub const LOGICAL_NOT: u16 = 168;
pub const SELECT: u16 = 169;
pub const I_EQUAL: u16 = 170;
pub const I_NOT_EQUAL: u16 = 171;
pub const U_GREATER_THAN: u16 = 172;
pub const S_GREATER_THAN: u16 = 173;
pub const U_GREATER_THAN_EQUAL: u16 = 174;
pub const S_GREATER_THAN_EQUAL: u16 = 175;
pub const U_LESS_THAN: u16 = 176;
pub const S_LESS_THAN: u16 = 177;
pub const U_LESS_THAN_EQUAL: u16 = 178;
pub const S_LESS_THAN_EQUAL: u16 = 179;
pub const SHIFT_RIGHT_LOGICAL: u16 = 194;
pub const SHIFT_RIGHT_ARITHMETIC: u16 = 195;
pub const SHIFT_LEFT_LOGICAL: u16 = 196;
pub const BITWISE_OR: u16 = 197;
pub const BITWISE_XOR: u16 = 198;
pub const BITWISE_AND: u16 = 199;

// Synchronisation.
pub const CONTROL_BARRIER: u16 = 224;
pub const MEMORY_BARRIER: u16 = 225;
pub const ATOMIC_LOAD: u16 = 227;
pub const ATOMIC_STORE: u16 = 228;
pub const ATOMIC_EXCHANGE: u16 = 229;
pub const ATOMIC_COMPARE_EXCHANGE: u16 = 230;
pub const ATOMIC_I_ADD: u16 = 234;
pub const ATOMIC_I_SUB: u16 = 235;
pub const ATOMIC_S_MIN: u16 = 236;
pub const ATOMIC_S_MAX: u16 = 238;
pub const ATOMIC_AND: u16 = 240;
pub const ATOMIC_OR: u16 = 241;
pub const ATOMIC_XOR: u16 = 242;

// Control flow.
pub const LOOP_MERGE: u16 = 246;
pub const SELECTION_MERGE: u16 = 247;
pub const LABEL: u16 = 248;
pub const BRANCH: u16 = 249;
pub const BRANCH_CONDITIONAL: u16 = 250;
pub const SWITCH: u16 = 251;
pub const RETURN: u16 = 253;

/// Capability enumerants.
pub const CAP_SHADER: u32 = 1;
pub const CAP_GROUP_NON_UNIFORM: u32 = 61;
pub const CAP_VULKAN_MEMORY_MODEL: u32 = 5345;
pub const CAP_VULKAN_MEMORY_MODEL_DEVICE_SCOPE: u32 = 5346;

pub const ADDRESSING_LOGICAL: u32 = 0;
pub const MEMORY_MODEL_VULKAN: u32 = 3;
pub const EXECUTION_MODEL_GL_COMPUTE: u32 = 5;
pub const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;

/// Storage classes.
pub const SC_INPUT: u32 = 1;
pub const SC_WORKGROUP: u32 = 4;
pub const SC_FUNCTION: u32 = 7;
pub const SC_STORAGE_BUFFER: u32 = 12;

/// Decorations.
pub const DEC_BLOCK: u32 = 2;
pub const DEC_ARRAY_STRIDE: u32 = 6;
pub const DEC_BUILT_IN: u32 = 11;
pub const DEC_BINDING: u32 = 33;
pub const DEC_DESCRIPTOR_SET: u32 = 34;
pub const DEC_OFFSET: u32 = 35;

/// Built-ins.
pub const BUILTIN_WORKGROUP_ID: u32 = 26;
pub const BUILTIN_SUBGROUP_SIZE: u32 = 36;
pub const BUILTIN_SUBGROUP_ID: u32 = 40;
pub const BUILTIN_SUBGROUP_LOCAL_INVOCATION_ID: u32 = 41;

/// `MemoryAccess` operand bits.
pub const MA_VOLATILE: u32 = 0x1;
pub const MA_MAKE_POINTER_AVAILABLE: u32 = 0x8;
pub const MA_MAKE_POINTER_VISIBLE: u32 = 0x10;
pub const MA_NON_PRIVATE_POINTER: u32 = 0x20;

/// `Scope` enumerants the harness itself uses.
pub const SCOPE_DEVICE: u32 = 1;
pub const SCOPE_WORKGROUP: u32 = 2;
