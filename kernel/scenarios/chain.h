/* chain.h - the functions of scenario=panic (chain_a.c). */
#ifndef KERNEL_CHAIN_H
#define KERNEL_CHAIN_H

int chain_first(int n);
int chain_second(int n);
int chain_third(int n);
int chain_fourth(int n);
int chain_fifth(int n);
int chain_bottom(int n);

#endif /* KERNEL_CHAIN_H */
