/* bellperson_main.h - `gpud --bellperson-prove` (bellperson_main.c). */
#ifndef SLOTPROVE_BELLPERSON_MAIN_H
#define SLOTPROVE_BELLPERSON_MAIN_H

/* argv[0] is "--bellperson-prove"; returns the exit status. */
int bellperson_prove_main(int argc, char **argv);

#endif
