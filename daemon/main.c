/* SPDX-License-Identifier: MIT */
/* Placeholder while the daemon is assembled; replaced by the real main. */
#include <stdio.h>

#include "nvmond/config.h"

int main(void)
{
	printf("nvmond %s\n", NVMOND_VERSION);
	return 0;
}
