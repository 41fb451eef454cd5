// The DWARF constants the reader uses (DWARF 5, 7.5 - 7.25, and the GNU extensions it reads),
// so that it needs no DWARF library's headers.

#ifndef CDWARF_CONSTANTS_H
#define CDWARF_CONSTANTS_H

// Tags.
#define DW_TAG_class_type            0x02
#define DW_TAG_enumeration_type      0x04
#define DW_TAG_lexical_block         0x0b
#define DW_TAG_compile_unit          0x11
#define DW_TAG_structure_type        0x13
#define DW_TAG_union_type            0x17
#define DW_TAG_inlined_subroutine    0x1d
#define DW_TAG_module                0x1e
#define DW_TAG_catch_block           0x25
#define DW_TAG_subprogram            0x2e
#define DW_TAG_try_block             0x32
#define DW_TAG_interface_type        0x38
#define DW_TAG_namespace             0x39
#define DW_TAG_partial_unit          0x3c

// Attributes.
#define DW_AT_sibling                0x01
#define DW_AT_name                   0x03
#define DW_AT_stmt_list              0x10
#define DW_AT_low_pc                 0x11
#define DW_AT_high_pc                0x12
#define DW_AT_comp_dir               0x1b
#define DW_AT_abstract_origin        0x31
#define DW_AT_specification          0x47
#define DW_AT_ranges                 0x55
#define DW_AT_call_column            0x57
#define DW_AT_call_file              0x58
#define DW_AT_call_line              0x59
#define DW_AT_linkage_name           0x6e
#define DW_AT_str_offsets_base       0x72
#define DW_AT_addr_base              0x73
#define DW_AT_rnglists_base          0x74
#define DW_AT_MIPS_linkage_name      0x2007
#define DW_AT_GNU_dwo_name           0x2130
#define DW_AT_GNU_dwo_id             0x2131
#define DW_AT_GNU_ranges_base        0x2132
#define DW_AT_GNU_addr_base          0x2133

// Forms.
#define DW_FORM_addr                 0x01
#define DW_FORM_block2               0x03
#define DW_FORM_block4               0x04
#define DW_FORM_data2                0x05
#define DW_FORM_data4                0x06
#define DW_FORM_data8                0x07
#define DW_FORM_string               0x08
#define DW_FORM_block                0x09
#define DW_FORM_block1               0x0a
#define DW_FORM_data1                0x0b
#define DW_FORM_flag                 0x0c
#define DW_FORM_sdata                0x0d
#define DW_FORM_strp                 0x0e
#define DW_FORM_udata                0x0f
#define DW_FORM_ref_addr             0x10
#define DW_FORM_ref1                 0x11
#define DW_FORM_ref2                 0x12
#define DW_FORM_ref4                 0x13
#define DW_FORM_ref8                 0x14
#define DW_FORM_ref_udata            0x15
#define DW_FORM_indirect             0x16
#define DW_FORM_sec_offset           0x17
#define DW_FORM_exprloc              0x18
#define DW_FORM_flag_present         0x19
#define DW_FORM_strx                 0x1a
#define DW_FORM_addrx                0x1b
#define DW_FORM_ref_sup4             0x1c
#define DW_FORM_strp_sup             0x1d
#define DW_FORM_data16               0x1e
#define DW_FORM_line_strp            0x1f
#define DW_FORM_ref_sig8             0x20
#define DW_FORM_implicit_const       0x21
#define DW_FORM_loclistx             0x22
#define DW_FORM_rnglistx             0x23
#define DW_FORM_ref_sup8             0x24
#define DW_FORM_strx1                0x25
#define DW_FORM_strx2                0x26
#define DW_FORM_strx3                0x27
#define DW_FORM_strx4                0x28
#define DW_FORM_addrx1               0x29
#define DW_FORM_addrx2               0x2a
#define DW_FORM_addrx3               0x2b
#define DW_FORM_addrx4               0x2c
#define DW_FORM_GNU_addr_index       0x1f01
#define DW_FORM_GNU_str_index        0x1f02
#define DW_FORM_GNU_ref_alt          0x1f20
#define DW_FORM_GNU_strp_alt         0x1f21

// Unit types (DWARF 5).
#define DW_UT_compile                0x01
#define DW_UT_type                   0x02
#define DW_UT_partial                0x03
#define DW_UT_skeleton               0x04
#define DW_UT_split_compile          0x05
#define DW_UT_split_type             0x06

// Standard line opcodes.
#define DW_LNS_copy                  0x01
#define DW_LNS_advance_pc            0x02
#define DW_LNS_advance_line          0x03
#define DW_LNS_set_file              0x04
#define DW_LNS_set_column            0x05
#define DW_LNS_negate_stmt           0x06
#define DW_LNS_set_basic_block       0x07
#define DW_LNS_const_add_pc          0x08
#define DW_LNS_fixed_advance_pc      0x09
#define DW_LNS_set_prologue_end      0x0a
#define DW_LNS_set_epilogue_begin    0x0b
#define DW_LNS_set_isa               0x0c

// Extended line opcodes.
#define DW_LNE_end_sequence          0x01
#define DW_LNE_set_address           0x02
#define DW_LNE_define_file           0x03

// Line-table entry contents (DWARF 5).
#define DW_LNCT_path                 0x01
#define DW_LNCT_directory_index      0x02

// Range-list entries (DWARF 5).
#define DW_RLE_end_of_list           0x00
#define DW_RLE_base_addressx         0x01
#define DW_RLE_startx_endx           0x02
#define DW_RLE_startx_length         0x03
#define DW_RLE_offset_pair           0x04
#define DW_RLE_base_address          0x05
#define DW_RLE_start_end             0x06
#define DW_RLE_start_length          0x07

#endif
