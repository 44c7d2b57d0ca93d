//! The SPIR-V binary encoding: a module as its logical-layout sections
//! (SPIR-V 1.5, section 2.4) of 32-bit words, instructions as
//! `word count << 16 | opcode` followed by operands, literal strings
//! NUL-terminated and padded to whole little-endian words.

/// SPIR-V's magic number.
const MAGIC: u32 = 0x0723_0203;
/// SPIR-V 1.5: core in Vulkan 1.2, so every Vulkan memory model device
/// with a 1.2+ driver takes it (`VulkanMemoryModel` is core since 1.5).
pub const VERSION_1_5: u32 = 0x0001_0500;

/// A module under construction, one word vector per layout section.
#[derive(Default)]
pub struct Module {
    bound: u32,
    pub capabilities: Vec<u32>,
    pub memory_model: Vec<u32>,
    pub entry_points: Vec<u32>,
    pub execution_modes: Vec<u32>,
    pub names: Vec<u32>,
    pub annotations: Vec<u32>,
    /// Types, constants and global variables (they may interleave).
    pub globals: Vec<u32>,
    pub functions: Vec<u32>,
}

impl Module {
    pub fn new() -> Self {
        Module {
            bound: 1,
            ..Module::default()
        }
    }

    /// A fresh result id.
    pub fn id(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// The module's words: header, then the sections in layout order.
    pub fn finish(self) -> Vec<u32> {
        let mut out = vec![MAGIC, VERSION_1_5, 0, self.bound, 0];
        for section in [
            self.capabilities,
            self.memory_model,
            self.entry_points,
            self.execution_modes,
            self.names,
            self.annotations,
            self.globals,
            self.functions,
        ] {
            out.extend(section);
        }
        out
    }
}

/// Appends one instruction to `section`.
pub fn inst(section: &mut Vec<u32>, opcode: u16, operands: &[u32]) {
    // Our instructions are at most a few dozen words (the longest is an
    // OpSwitch with one case per block or thread), far below 65535.
    let count = (operands.len() + 1) as u32;
    section.push((count << 16) | u32::from(opcode));
    section.extend_from_slice(operands);
}

/// A literal string's words.
pub fn string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        assert_eq!(string("main"), vec![0x6e69_616d, 0]);
        assert_eq!(string("abc"), vec![0x0063_6261]);
        assert_eq!(string(""), vec![0]);
    }

    #[test]
    fn instruction_word_count_includes_the_opcode_word() {
        let mut s = Vec::new();
        inst(&mut s, 17, &[1]);
        assert_eq!(s, vec![(2 << 16) | 17, 1]);
    }

    #[test]
    fn header_bound_exceeds_every_id() {
        let mut m = Module::new();
        let a = m.id();
        let b = m.id();
        let words = m.finish();
        assert_eq!(words[0], MAGIC);
        assert!(words[3] > a.max(b));
    }
}
