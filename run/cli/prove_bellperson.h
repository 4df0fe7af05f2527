/*
 * prove_bellperson.h - `slotprove prove --params P.params --pce C.pce
 * WITNESS... OUT`, `slotprove fullprove --params P.params --pce C.pce
 * INPUT PROGRAM OUT` and `slotprove verify --bellperson VK PUBLIC PROOF`
 * (prove_bellperson.c, verify_bellperson.c): Filecoin's bellperson keys.
 */
#ifndef SLOTPROVE_PROVE_BELLPERSON_H
#define SLOTPROVE_PROVE_BELLPERSON_H

/* 1 if argv asks for the bellperson form of its command (--params, or
 * --bellperson for verify). */
int bellperson_wanted(int argc, char **argv, const char *flag);

int cmd_prove_bellperson(int argc, char **argv);
/* `slotprove fullprove --params P --pce C [options] INPUT PROGRAM OUT`: one
 * partition whose witness PROGRAM computes from INPUT (prove_bellperson.c) */
int cmd_fullprove_bellperson(int argc, char **argv);
int cmd_verify_bellperson(int argc, char **argv);

#endif
